//! The flit store of a flow-control unit in block RAM (`--buffers bram`):
//! one write port and one read port with a registered read, the shape of
//! the iCE40's SB_RAM40_4K and the ECP5's DP16KD.
//!
//! The read is registered: `read_data` shows, from a clock edge on, the
//! entry `read_address` named before that edge, as it was before the
//! write of that same edge (read first). Block RAMs do not promise even
//! that when a cycle reads the entry it writes (the iCE40's output is then
//! undefined), so the Verilog tells Yosys that no such read is used
//! (`no_rw_check`) and the user of the RAM must not use one: the flow-control
//! unit takes the flit it writes from a bypass register instead. The model
//! reads first, like Icarus and Verilator, so a user that forgets the
//! bypass shows the old entry in simulation instead of the flit it wrote.
//!
//! Entries start at zero (an `initial` block: Yosys loads it into the RAM's
//! contents, so hardware starts as the simulations do).

use std::fmt::Write as _;

use rust_hdl::prelude::*;

use super::flow_control::COUNT_BITS;

type Addr = Bits<COUNT_BITS>;

/// A simple dual-port RAM of W-bit entries with a registered read
/// (module documentation).
#[derive(LogicBlock)]
pub struct BufferRam<const W: usize> {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Write `write_data` to `write_address` at the clock edge.
    pub write_enable: Signal<In, Bit>,
    /// The entry written.
    pub write_address: Signal<In, Addr>,
    /// The data written (W bits).
    pub write_data: Signal<In, Bits<W>>,
    /// The entry read: `read_data` shows it after the clock edge.
    pub read_address: Signal<In, Addr>,
    /// The entry `read_address` named before the last edge, as it was
    /// before that edge's write.
    pub read_data: Signal<Out, Bits<W>>,
    _mem: Vec<Bits<W>>,
    /// Address bits used (the rest of the address ports are ignored).
    _abits: usize,
}

impl<const W: usize> BufferRam<W> {
    /// A RAM of at least `entries` entries (1 to 2^[`COUNT_BITS`]; the RAM
    /// rounds up to a power of two, at least two).
    pub fn new(entries: usize) -> crate::Result<Self> {
        super::check_width::<W>("buffer RAM")?;
        super::check_size(
            "buffer RAM",
            "entry count",
            entries,
            (1, 1 << COUNT_BITS),
            "an address is COUNT_BITS = 5 bits wide",
        )?;
        Ok(Self::new_unchecked(entries))
    }

    /// [`BufferRam::new`] for callers whose size is validated.
    pub(crate) fn new_unchecked(entries: usize) -> Self {
        let abits = entries.max(2).next_power_of_two().trailing_zeros() as usize;
        BufferRam {
            clock: Signal::default(),
            write_enable: Signal::default(),
            write_address: Signal::default(),
            write_data: Signal::default(),
            read_address: Signal::default(),
            read_data: Signal::default(),
            _mem: vec![Bits::<W>::default(); 1 << abits],
            _abits: abits,
        }
    }

    fn index(&self, a: Addr) -> usize {
        a.index() & ((1 << self._abits) - 1)
    }
}

impl<const W: usize> Logic for BufferRam<W> {
    fn update(&mut self) {
        if self.clock.pos_edge() {
            // Read first: the entry before this edge's write.
            self.read_data.next = self._mem[self.index(self.read_address.val())];
            if self.write_enable.val() {
                let a = self.index(self.write_address.val());
                self._mem[a] = self.write_data.val();
            }
        }
    }

    fn connect(&mut self) {
        self.read_data.connect();
    }

    fn hdl(&self) -> Verilog {
        let (a, n) = (self._abits, 1usize << self._abits);
        let mut s = String::new();
        // no_rw_check: no read of the entry being written is used (module
        // documentation), so Yosys adds no logic to define one.
        let _ = writeln!(s, "(* ram_style = \"block\", no_rw_check *)");
        let _ = writeln!(s, "reg [{}:0] mem [0:{}];", W - 1, n - 1);
        let _ = writeln!(s, "initial begin");
        for e in 0..n {
            let _ = writeln!(s, "    mem[{e}] = {W}'h0;");
        }
        let _ = writeln!(s, "end");
        let _ = writeln!(s, "always @(posedge clock) begin");
        let _ = writeln!(
            s,
            "    if (write_enable) mem[write_address[{}:0]] <= write_data;",
            a - 1
        );
        let _ = writeln!(s, "    read_data <= mem[read_address[{}:0]];", a - 1);
        let _ = writeln!(s, "end");
        if a < COUNT_BITS {
            let _ = writeln!(
                s,
                "wire unused_address_bits = ^{{write_address[{hi}:{a}], read_address[{hi}:{a}]}};",
                hi = COUNT_BITS - 1
            );
        }
        Verilog::Custom(s)
    }
}
