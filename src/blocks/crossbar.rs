//! P x P crossbar, W data bits plus flit sideband (valid, head, tail).
//!
//! Chien §3 (Figure 1): the crossbar connects any input to any output; the
//! routing arbiter sets a connection up on the head flit and it is held
//! until the tail flit has passed (wormhole switching).
//! Chien Figure 2: crossbar delay grows with log P (selection tree depth);
//! Figure 4: crossbar cost grows with P^2 (one P-input selection per output).
//!
//! Ports (k = o * P + i):
//! - `grant_k` (in): the arbiter connects input i to output o this cycle;
//!   at most one per output is expected, the lowest i wins otherwise.
//!   Ignored while output o holds a connection.
//! - `in_data_i`, `in_valid_i`, `in_head_i`, `in_tail_i` (in): input flits.
//! - `out_data_o`, `out_valid_o`, `out_head_o`, `out_tail_o` (out): the
//!   flit of the input connected to o (all zero when none is).
//! - `out_busy_o` (out): output o holds a connection from an earlier cycle.
//!
//! A connection becomes held when a valid non-tail flit passes through a
//! fresh grant; it is released (in the same cycle) when a valid tail flit
//! passes. Synchronous reset `rst` drops every connection.
//!
//! [`Crossbar::per_flit`] builds the same switch without held connections:
//! every cycle each output takes the first granted input, so flits of
//! different packets (on different virtual channels) can follow each other
//! on one output, as a router whose switch allocator grants the crossbar
//! per flit needs (Chien §3: virtual channels share the physical channel
//! flit by flit). `out_busy` is then always 0.

use rust_hdl::prelude::*;

use super::signals;

/// A P x P crossbar for W-bit flits (module documentation; Chien §3).
#[derive(LogicBlock)]
pub struct Crossbar<const W: usize> {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset, active high.
    pub rst: Signal<In, Bit>,
    /// `grant[o * P + i]`: connect input i to output o this cycle.
    pub grant: Vec<Signal<In, Bit>>,
    /// Input i's flit data (W bits).
    pub in_data: Vec<Signal<In, Bits<W>>>,
    /// Input i carries a flit.
    pub in_valid: Vec<Signal<In, Bit>>,
    /// Input i's flit is a head flit.
    pub in_head: Vec<Signal<In, Bit>>,
    /// Input i's flit is a tail flit.
    pub in_tail: Vec<Signal<In, Bit>>,
    /// Output o's flit data: the connected input's, zero when none is.
    pub out_data: Vec<Signal<Out, Bits<W>>>,
    /// Output o carries a flit.
    pub out_valid: Vec<Signal<Out, Bit>>,
    /// Output o's flit is a head flit.
    pub out_head: Vec<Signal<Out, Bit>>,
    /// Output o's flit is a tail flit.
    pub out_tail: Vec<Signal<Out, Bit>>,
    /// Output o holds a connection from an earlier cycle.
    pub out_busy: Vec<Signal<Out, Bit>>,
    /// Held connection, one-hot per output (index o * P + i).
    held: Vec<DFF<Bit>>,
    /// Selected connection this cycle (held, else the first fresh grant).
    sel: Vec<Signal<Local, Bit>>,
    /// Per output: some lower-indexed grant was already taken.
    taken: Vec<Signal<Local, Bit>>,
    busy: Vec<Signal<Local, Bit>>,
    /// Whether connections are held from head to tail.
    hold: Constant<Bit>,
    /// Which inputs each output is wired to (index o * P + i): a grant of
    /// a pair not wired is ignored and synthesis drops its selection term.
    link: Vec<Constant<Bit>>,
    zero: Constant<Bits<W>>,
    _p: usize,
    _pp: usize,
    _p1: usize,
}

impl<const W: usize> Crossbar<W> {
    /// A crossbar of `ports` inputs and outputs (at least 1) that holds
    /// each connection from head to tail.
    pub fn new(ports: usize) -> crate::Result<Self> {
        Self::check(ports)?;
        Ok(Self::build(ports, true))
    }

    /// A crossbar of `ports` inputs and outputs (at least 1) switched per
    /// flit: no held connections.
    pub fn per_flit(ports: usize) -> crate::Result<Self> {
        Self::check(ports)?;
        Ok(Self::per_flit_unchecked(ports))
    }

    /// A crossbar switched per flit whose output o is wired to input i only
    /// where `links[o * P + i]` (a router's relation never sends some
    /// inputs to some outputs: `crate::router::tables::reach`); `links`
    /// holds P^2 entries.
    pub fn per_flit_linking(ports: usize, links: &[bool]) -> crate::Result<Self> {
        Self::check(ports)?;
        super::check_size(
            "crossbar",
            "length of the link list",
            links.len(),
            (ports * ports, ports * ports),
            "one entry per output and input, P^2",
        )?;
        Ok(Self::per_flit_linking_unchecked(ports, links))
    }

    /// [`Crossbar::per_flit`] for callers whose `ports` is validated.
    pub(crate) fn per_flit_unchecked(ports: usize) -> Self {
        Self::build(ports, false)
    }

    /// [`Crossbar::per_flit_linking`] for callers whose sizes are validated.
    pub(crate) fn per_flit_linking_unchecked(ports: usize, links: &[bool]) -> Self {
        let mut x = Self::build(ports, false);
        x.link = links.iter().map(|&l| Constant::new(l)).collect();
        x
    }

    fn check(ports: usize) -> crate::Result<()> {
        super::check_width::<W>("crossbar")?;
        super::check_size("crossbar", "port count P", ports, (1, usize::MAX), "")
    }

    fn build(ports: usize, hold: bool) -> Self {
        let p = ports;
        Crossbar {
            clock: Signal::default(),
            rst: Signal::default(),
            grant: signals(p * p),
            in_data: signals(p),
            in_valid: signals(p),
            in_head: signals(p),
            in_tail: signals(p),
            out_data: signals(p),
            out_valid: signals(p),
            out_head: signals(p),
            out_tail: signals(p),
            out_busy: signals(p),
            held: (0..p * p).map(|_| DFF::default()).collect(),
            sel: signals(p * p),
            taken: signals(p),
            busy: signals(p),
            hold: Constant::new(hold),
            link: (0..p * p).map(|_| Constant::new(true)).collect(),
            zero: Constant::new(Bits::<W>::default()),
            _p: p,
            _pp: p * p,
            _p1: p + 1,
        }
    }

    /// Inputs (and outputs) P.
    pub fn ports(&self) -> usize {
        self._p
    }
}

impl<const W: usize> Logic for Crossbar<W> {
    #[hdl_gen]
    fn update(&mut self) {
        for k in 0..self._pp {
            self.held[k].clock.next = self.clock.val();
            self.held[k].d.next = self.held[k].q.val();
        }
        // One-iteration loop: makes P a loop variable, which rust-hdl can
        // use inside a flattened index (o * P + i).
        for pw in self._p..self._p1 {
            for o in 0..self._p {
                self.busy[o].next = false;
                for i in 0..self._p {
                    if self.held[o * pw + i].q.val() {
                        self.busy[o].next = true;
                    }
                }
                self.out_busy[o].next = self.busy[o].val();
                // Selection: the held connection, else the first fresh grant.
                self.taken[o].next = false;
                for i in 0..self._p {
                    if self.busy[o].val() {
                        self.sel[o * pw + i].next = self.held[o * pw + i].q.val();
                    } else {
                        self.sel[o * pw + i].next = self.grant[o * pw + i].val()
                            & self.link[o * pw + i].val()
                            & !self.taken[o].val();
                        if self.grant[o * pw + i].val() & self.link[o * pw + i].val() {
                            self.taken[o].next = true;
                        }
                    }
                }
                // AND-OR selection tree (Chien Figure 2: depth log P).
                self.out_data[o].next = self.zero.val();
                self.out_valid[o].next = false;
                self.out_head[o].next = false;
                self.out_tail[o].next = false;
                for i in 0..self._p {
                    if self.sel[o * pw + i].val() {
                        self.out_data[o].next = self.out_data[o].val() | self.in_data[i].val();
                        self.out_valid[o].next = self.out_valid[o].val() | self.in_valid[i].val();
                        self.out_head[o].next = self.out_head[o].val() | self.in_head[i].val();
                        self.out_tail[o].next = self.out_tail[o].val() | self.in_tail[i].val();
                    }
                }
                // Hold from the head flit until the tail flit has passed.
                for i in 0..self._p {
                    if self.out_valid[o].val() & self.hold.val() {
                        if self.out_tail[o].val() {
                            self.held[o * pw + i].d.next = false;
                        } else {
                            self.held[o * pw + i].d.next = self.sel[o * pw + i].val();
                        }
                    }
                    if self.rst.val() {
                        self.held[o * pw + i].d.next = false;
                    }
                }
            }
        }
    }
}

impl<const W: usize> super::HwBlock for Crossbar<W> {
    fn clock_mut(&mut self) -> Option<&mut Signal<In, Clock>> {
        Some(&mut self.clock)
    }
    fn visit_inputs(&mut self, f: &mut dyn FnMut(&mut dyn super::cosim::InputSignal)) {
        use super::cosim::each;
        f(&mut self.rst);
        each(&mut self.grant, f);
        each(&mut self.in_data, f);
        each(&mut self.in_valid, f);
        each(&mut self.in_head, f);
        each(&mut self.in_tail, f);
    }
    fn bias(&self, name: &str) -> Option<f64> {
        // Sparse grants and tails so that connections live for a while.
        if name.starts_with("grant") {
            Some(0.2)
        } else if name.starts_with("in_tail") {
            Some(0.15)
        } else {
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::blocks::cosim::{random_stimulus, run_model};
    use crate::blocks::tool_checks::all_checks;
    use crate::blocks::{prepare, BlockKind, BlockParams};

    /// Reference crossbar, written from the contract in the module doc.
    struct Reference {
        p: usize,
        hold: bool,
        held: Vec<Option<usize>>,
        /// Wired pairs (o * P + i).
        links: Vec<bool>,
    }

    /// Inputs of one cycle, decoded from a stimulus row.
    struct Cycle {
        rst: bool,
        grant: Vec<bool>,
        data: Vec<u64>,
        valid: Vec<bool>,
        head: Vec<bool>,
        tail: Vec<bool>,
    }

    fn decode(p: usize, row: &[u64]) -> Cycle {
        let mut it = row.iter().copied();
        let mut take = |n: usize| -> Vec<u64> { (0..n).map(|_| it.next().unwrap()).collect() };
        let rst = take(1)[0] == 1;
        let grant = take(p * p).iter().map(|&x| x == 1).collect();
        let data = take(p);
        let valid = take(p).iter().map(|&x| x == 1).collect();
        let head = take(p).iter().map(|&x| x == 1).collect();
        let tail = take(p).iter().map(|&x| x == 1).collect();
        Cycle {
            rst,
            grant,
            data,
            valid,
            head,
            tail,
        }
    }

    impl Reference {
        /// Outputs in port order (data, valid, head, tail, busy per output),
        /// then the clock edge.
        fn step(&mut self, c: &Cycle) -> Vec<u64> {
            let p = self.p;
            let mut data = vec![0; p];
            let mut valid = vec![0; p];
            let mut head = vec![0; p];
            let mut tail = vec![0; p];
            let mut busy = vec![0; p];
            let mut next = self.held.clone();
            for o in 0..p {
                let sel = match self.held[o] {
                    Some(i) => {
                        busy[o] = 1;
                        Some(i)
                    }
                    None => (0..p).find(|&i| c.grant[o * p + i] && self.links[o * p + i]),
                };
                if let Some(i) = sel {
                    data[o] = c.data[i];
                    valid[o] = u64::from(c.valid[i]);
                    head[o] = u64::from(c.head[i]);
                    tail[o] = u64::from(c.tail[i]);
                    if c.valid[i] && self.hold {
                        next[o] = if c.tail[i] { None } else { Some(i) };
                    }
                }
                if c.rst {
                    next[o] = None;
                }
            }
            self.held = next;
            [data, valid, head, tail, busy].concat()
        }
    }

    fn row(
        p: usize,
        rst: bool,
        grants: &[(usize, usize)],
        flits: &[(usize, u64, bool, bool)],
    ) -> Vec<u64> {
        // flits: (input, data, head, tail), all valid
        let mut r = vec![u64::from(rst)];
        let mut g = vec![0; p * p];
        for &(o, i) in grants {
            g[o * p + i] = 1;
        }
        r.extend(g);
        let mut data = vec![0; p];
        let mut valid = vec![0; p];
        let mut head = vec![0; p];
        let mut tail = vec![0; p];
        for &(i, d, h, t) in flits {
            data[i] = d;
            valid[i] = 1;
            head[i] = u64::from(h);
            tail[i] = u64::from(t);
        }
        r.extend(data);
        r.extend(valid);
        r.extend(head);
        r.extend(tail);
        r
    }

    fn model_outputs(p: usize, stim: &[Vec<u64>]) -> Vec<Vec<u64>> {
        let mut x = Crossbar::<16>::new(p).unwrap();
        prepare(&mut x);
        run_model(&mut x, stim)
    }

    #[test]
    fn every_input_requests_one_output_and_the_connection_is_held_until_the_tail() {
        let p = 4;
        let all: Vec<(usize, usize)> = (0..p).map(|i| (2, i)).collect();
        let flits: Vec<(usize, u64, bool, bool)> =
            (0..p).map(|i| (i, 0x100 + i as u64, true, false)).collect();
        let body: Vec<(usize, u64, bool, bool)> = (0..p)
            .map(|i| (i, 0x200 + i as u64, false, false))
            .collect();
        let tails: Vec<(usize, u64, bool, bool)> =
            (0..p).map(|i| (i, 0x300 + i as u64, false, true)).collect();
        let stim = vec![
            row(p, true, &[], &[]),
            row(p, false, &all, &flits),
            // Input 0 holds output 2: a grant to input 3 is ignored.
            row(p, false, &[(2, 3)], &body),
            row(p, false, &[], &tails),
            // Back to back: the tail released output 2, input 3 now wins.
            row(p, false, &[(2, 3)], &flits),
        ];
        let out = model_outputs(p, &stim);
        let data = |c: usize, o: usize| out[c][o];
        let valid = |c: usize, o: usize| out[c][p + o];
        let busy = |c: usize, o: usize| out[c][4 * p + o];
        assert_eq!((data(1, 2), valid(1, 2), busy(1, 2)), (0x100, 1, 0));
        assert_eq!((data(2, 2), busy(2, 2)), (0x200, 1));
        assert_eq!((data(3, 2), busy(3, 2)), (0x300, 1));
        assert_eq!((data(4, 2), busy(4, 2)), (0x103, 0));
        // Other outputs never carried anything.
        for c in 0..stim.len() {
            for o in [0, 1, 3] {
                assert_eq!(valid(c, o), 0, "cycle {c} output {o}");
            }
        }
    }

    #[test]
    fn reset_in_the_middle_of_a_packet_drops_the_connection() {
        let p = 3;
        let stim = vec![
            row(p, false, &[(1, 0)], &[(0, 7, true, false)]),
            row(p, true, &[], &[(0, 8, false, false)]),
            row(p, false, &[], &[(0, 9, false, false)]),
        ];
        let out = model_outputs(p, &stim);
        assert_eq!(out[1][1], 8, "still connected during the reset cycle");
        assert_eq!(out[1][4 * p + 1], 1);
        assert_eq!(out[2][p + 1], 0, "no connection after reset");
        assert_eq!(out[2][4 * p + 1], 0);
    }

    #[test]
    fn matches_the_reference_on_random_traffic() {
        // (hold, some pairs not wired)
        for (hold, sparse) in [(true, false), (false, false), (false, true)] {
            for p in [2, 3, 5] {
                // An irregular pattern, every output keeping one input.
                let links: Vec<bool> = (0..p * p)
                    .map(|k| !sparse || (k / p + 2 * (k % p)) % 3 != 1)
                    .collect();
                let mut x = match (hold, sparse) {
                    (true, _) => Crossbar::<16>::new(p).unwrap(),
                    (false, false) => Crossbar::<16>::per_flit(p).unwrap(),
                    (false, true) => Crossbar::<16>::per_flit_linking(p, &links).unwrap(),
                };
                prepare(&mut x);
                let stim = random_stimulus(&x, "clock", 3000, 17 + p as u64);
                let got = run_model(&mut x, &stim);
                let mut r = Reference {
                    p,
                    hold,
                    held: vec![None; p],
                    links,
                };
                for (c, s) in stim.iter().enumerate() {
                    let want = r.step(&decode(p, s));
                    assert_eq!(got[c], want, "P={p} hold={hold} sparse={sparse} cycle {c}");
                }
            }
        }
    }

    #[test]
    fn a_per_flit_crossbar_interleaves_packets_on_one_output() {
        let p = 3;
        let mut x = Crossbar::<16>::per_flit(p).unwrap();
        prepare(&mut x);
        let stim = vec![
            row(p, true, &[], &[]),
            row(p, false, &[(1, 0)], &[(0, 0x10, true, false)]),
            row(p, false, &[(1, 2)], &[(2, 0x20, true, false)]),
            row(p, false, &[(1, 0)], &[(0, 0x11, false, true)]),
        ];
        let out = run_model(&mut x, &stim);
        let data: Vec<u64> = out[1..].iter().map(|o| o[1]).collect();
        assert_eq!(data, [0x10, 0x20, 0x11]);
        assert!(out.iter().all(|o| o[4 * p + 1] == 0), "never busy");
    }

    #[test]
    fn verilog_passes_the_tools_and_cosimulates() {
        let sets: Vec<BlockParams> = [(2, 8), (5, 16), (4, 64)]
            .iter()
            .map(|&(p, w)| BlockParams {
                ports: p,
                flit_width: w,
                ..BlockParams::default()
            })
            .collect();
        // The mutant loses the priority among simultaneous grants.
        all_checks(
            BlockKind::Crossbar,
            &sets,
            3000,
            ("taken[0] = 1'b1", "taken[0] = 1'b0"),
        );
    }
}
