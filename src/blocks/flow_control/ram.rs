//! The flit store of a flow-control unit in block RAM (`buffers = bram`):
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
//!
//! The same RAM with an asynchronous read ([`BufferRam::distributed`],
//! `buffers = lutram`) is the ECP5's distributed RAM (TRELLIS_DPR16X4, the
//! LUTs of its RAM slices, 16 entries of 4 bits each): `read_data` shows
//! the entry `read_address` names now, as the last edge left it, which is
//! what the flip-flop store's read multiplexer shows, so its user needs no
//! bypass. The iCE40 has no distributed RAM (Yosys finds no mapping for
//! it), so `routergen synth` refuses it on iCE40 targets.

use std::fmt::Write as _;

use rust_hdl::prelude::*;

use super::queue::COUNT_BITS;

type Addr = Bits<COUNT_BITS>;

/// A simple dual-port RAM of W-bit entries with a registered read, or
/// an asynchronous one (module documentation).
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
    /// The entry read: `read_data` shows it after the clock edge (at once
    /// when distributed).
    pub read_address: Signal<In, Addr>,
    /// The entry `read_address` named before the last edge, as it was
    /// before that edge's write (distributed: the entry it names now).
    pub read_data: Signal<Out, Bits<W>>,
    _mem: Vec<Bits<W>>,
    /// 1 for the asynchronous read of distributed RAM, else 0.
    _distributed: usize,
    /// Address bits used (the rest of the address ports are ignored).
    _abits: usize,
}

impl<const W: usize> BufferRam<W> {
    /// A RAM of at least `entries` entries (1 to 2^[`COUNT_BITS`]; the RAM
    /// rounds up to a power of two, at least two).
    pub fn new(entries: usize) -> crate::Result<Self> {
        crate::blocks::check_width::<W>("buffer RAM")?;
        crate::blocks::check_size(
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
            _distributed: 0,
        }
    }

    /// This RAM with an asynchronous read (distributed RAM).
    pub(crate) fn distributed(mut self) -> Self {
        self._distributed = 1;
        self
    }

    fn index(&self, a: Addr) -> usize {
        a.index() & ((1 << self._abits) - 1)
    }
}

impl<const W: usize> Logic for BufferRam<W> {
    fn update(&mut self) {
        if self.clock.pos_edge() {
            // Read first: the entry before this edge's write.
            if self._distributed == 0 {
                self.read_data.next = self._mem[self.index(self.read_address.val())];
            }
            if self.write_enable.val() {
                let a = self.index(self.write_address.val());
                self._mem[a] = self.write_data.val();
            }
        }
        if self._distributed == 1 {
            self.read_data.next = self._mem[self.index(self.read_address.val())];
        }
    }

    fn connect(&mut self) {
        self.read_data.connect();
    }

    fn hdl(&self) -> Verilog {
        Verilog::Custom(ram_verilog(W, self._abits, self._distributed == 0))
    }
}

/// The Verilog body of a buffer RAM of `w`-bit entries and `abits` address
/// bits (of the [`COUNT_BITS`] the ports carry), entries starting at zero:
/// with `registered_read` a block RAM's read (read first; module
/// documentation), else the asynchronous read of distributed RAM.
fn ram_verilog(w: usize, abits: usize, registered_read: bool) -> String {
    let (a, n) = (abits, 1usize << abits);
    let mut s = String::new();
    if registered_read {
        // no_rw_check: no read of the entry being written is used (module
        // documentation), so Yosys adds no logic to define one.
        let _ = writeln!(s, "(* ram_style = \"block\", no_rw_check *)");
    } else {
        let _ = writeln!(s, "(* ram_style = \"distributed\" *)");
    }
    let _ = writeln!(s, "reg [{}:0] mem [0:{}];", w - 1, n - 1);
    let _ = writeln!(s, "initial begin");
    for e in 0..n {
        let _ = writeln!(s, "    mem[{e}] = {w}'h0;");
    }
    let _ = writeln!(s, "end");
    let _ = writeln!(s, "always @(posedge clock) begin");
    let _ = writeln!(
        s,
        "    if (write_enable) mem[write_address[{}:0]] <= write_data;",
        a - 1
    );
    if registered_read {
        let _ = writeln!(s, "    read_data <= mem[read_address[{}:0]];", a - 1);
        let _ = writeln!(s, "end");
    } else {
        let _ = writeln!(s, "end");
        // Through a wire: `@*` over the array itself is sensitive to every
        // word (Icarus warns).
        let _ = writeln!(
            s,
            "wire [{}:0] read_word = mem[read_address[{}:0]];",
            w - 1,
            a - 1
        );
        let _ = writeln!(s, "always @(*) read_data = read_word;");
    }
    if a < COUNT_BITS {
        let _ = writeln!(
            s,
            "wire unused_address_bits = ^{{write_address[{hi}:{a}], read_address[{hi}:{a}]}};",
            hi = COUNT_BITS - 1
        );
    }
    s
}
