//! Header selector: passes on the updated header that matches the routing
//! decision.
//!
//! Chien §3 (Figure 1): the address decoder computes, in parallel, the
//! updated header for every candidate output; once the arbiter has chosen,
//! the header selector picks the matching one. Figure 2: its delay grows
//! with log F (a selection tree over F headers), and it sits on the
//! connection-setup critical path; Figure 4: its cost grows with F.
//!
//! Ports (combinational, no clock):
//! - `hdr_j` (W bits), j < F: the updated header for candidate j;
//! - `sel_j`: the decision, one-hot (the arbiter's `grant` of this input);
//!   if several are set the lowest j wins;
//! - `out_hdr` (W bits): the selected header, zero when none is selected;
//! - `out_valid`: some candidate is selected.

use rust_hdl::prelude::*;

use super::cosim::{each, InputSignal};
use super::{signals, HwBlock};

/// The header selector over F candidate headers of W bits (module
/// documentation; Chien §3).
#[derive(LogicBlock)]
pub struct HeaderSelector<const W: usize> {
    /// `hdr[j]`: the updated header of candidate j (W bits).
    pub hdr: Vec<Signal<In, Bits<W>>>,
    /// `sel[j]`: the arbiter chose candidate j (one-hot; the lowest wins).
    pub sel: Vec<Signal<In, Bit>>,
    /// The selected header, zero when none is selected.
    pub out_hdr: Signal<Out, Bits<W>>,
    /// Some candidate is selected.
    pub out_valid: Signal<Out, Bit>,
    zero: Constant<Bits<W>>,
    _f: usize,
}

impl<const W: usize> HeaderSelector<W> {
    /// A selector over `freedom` candidate headers (at least 1).
    pub fn new(freedom: usize) -> crate::Result<Self> {
        super::check_width::<W>("header selector")?;
        super::check_size(
            "header selector",
            "routing freedom F",
            freedom,
            (1, usize::MAX),
            "",
        )?;
        let f = freedom;
        Ok(HeaderSelector {
            hdr: signals(f),
            sel: signals(f),
            out_hdr: Signal::default(),
            out_valid: Signal::default(),
            zero: Constant::new(Bits::<W>::default()),
            _f: f,
        })
    }
}

impl<const W: usize> Logic for HeaderSelector<W> {
    #[hdl_gen]
    fn update(&mut self) {
        // Priority written from the last candidate down, so the lowest
        // selected j is the one left standing.
        self.out_hdr.next = self.zero.val();
        self.out_valid.next = false;
        for j in 0..self._f {
            if self.sel[j].val() & !self.out_valid.val() {
                self.out_hdr.next = self.hdr[j].val();
                self.out_valid.next = true;
            }
        }
    }
}

impl<const W: usize> HwBlock for HeaderSelector<W> {
    fn clock_mut(&mut self) -> Option<&mut Signal<In, Clock>> {
        None
    }
    fn visit_inputs(&mut self, f: &mut dyn FnMut(&mut dyn InputSignal)) {
        each(&mut self.hdr, f);
        each(&mut self.sel, f);
    }
    fn bias(&self, _name: &str) -> Option<f64> {
        // Mostly one-hot or empty decisions, sometimes several.
        Some(0.3)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::blocks::cosim::{random_stimulus, run_model};
    use crate::blocks::tool_checks::all_checks;
    use crate::blocks::{prepare, BlockKind, BlockParams};

    #[test]
    fn selects_the_header_of_the_decision() {
        for f in [1, 2, 3, 5, 8] {
            let mut x = HeaderSelector::<32>::new(f).unwrap();
            prepare(&mut x);
            let stim = random_stimulus(&x, "clock", 2000, f as u64);
            let got = run_model(&mut x, &stim);
            for (c, row) in stim.iter().enumerate() {
                let (hdr, sel) = row.split_at(f);
                // Reference: the first selected candidate, else nothing.
                let want = match sel.iter().position(|&s| s == 1) {
                    Some(j) => vec![hdr[j], 1],
                    None => vec![0, 0],
                };
                assert_eq!(got[c], want, "F={f} cycle {c}");
            }
        }
    }

    #[test]
    fn verilog_passes_the_tools_and_cosimulates() {
        let sets: Vec<BlockParams> = [(3, 16), (1, 8), (4, 64)]
            .iter()
            .map(|&(f, w)| BlockParams {
                freedom: f,
                flit_width: w,
                ..BlockParams::default()
            })
            .collect();
        // The mutant drops the priority: a later selection overrides.
        all_checks(
            BlockKind::HeaderSelector,
            &sets,
            2000,
            ("if (sel_1 & ~out_valid)", "if (sel_1)"),
        );
    }
}
