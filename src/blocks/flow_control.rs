//! Flow-control unit: one channel's flit buffer with credit-based (or
//! on/off) link flow control, both ends of the link.
//!
//! Chien §3 (Figure 1): a flow-control unit per channel buffers flits and
//! runs the link protocol; Figure 2 gives it a constant delay, Figure 4 a
//! constant cost (it does not grow with P, F or V).
//!
//! Receive side: flits arrive on `in_*`; the buffer holds up to D flits in
//! order; `out_*` shows the oldest flit (`out_valid` when the buffer is not
//! empty; `out_head` and `out_tail` low when it is, `out_data` then shows
//! a stale slot: gating it would cost a LUT level on every data bit) and
//! it leaves when `out_ready` is high. A
//! flit that arrives while the buffer is full (at the start of the cycle,
//! even if a flit leaves in it) is refused and `overflow` is raised for
//! that cycle. A sender that obeys the protocol never causes it: a credit
//! (or an on level) for the slot a leaving flit frees reaches the sender
//! after the cycle it leaves in. So the write does not wait for the read:
//! the buffer's write enable depends on `in_valid` and the occupancy only,
//! not on `out_ready` (which comes late in the cycle, from switch
//! allocation, in the router).
//! - credit mode: `credit_out` pulses once per flit that leaves;
//! - on/off mode: `credit_out` is the "on" level, high while at least
//!   `slack` slots are free: the flits that can still arrive after the
//!   level is computed. Slack 1 ([`FlowControlUnit::new`]) assumes a sender
//!   that sees the level in the cycle it is computed; a sender that
//!   registers the level first (the router, `crate::router`) needs 2.
//!
//! Send side: `send_ok` says the downstream buffer (also D deep) can take a
//! flit; a flit is sent when `send_req` and `send_ok` are high.
//! - credit mode: a counter starts at D after reset, drops by one per flit
//!   sent and rises by one per `credit_in` pulse (never above D);
//! - on/off mode: `send_ok` is `credit_in`, the downstream "on" level.
//!
//! Synchronous reset `rst` empties the buffer and restores D credits.
//!
//! An absent unit ([`FlowControlUnit::absent`]) buffers an input VC on
//! which no flit may arrive: it shows nothing and refuses every flit, and
//! synthesis removes it. A present unit's Verilog has no trace of the
//! option.
//!
//! Storage ([`FlowControlUnit::stored_in`]): the flits' data sit in D
//! flip-flop slots read through a D:1 multiplexer per bit, or in a block
//! RAM ([`super::buffer_ram`]) whose registered read is addressed by the
//! read pointer's next value, so that from each edge on it shows the new
//! oldest flit. The one flit the RAM cannot show is the one written in
//! the same edge (a flit landing in an empty buffer, or in one whose only
//! flit leaves): a register loaded with every arriving flit, and a flag set
//! when the written entry is the one read, show it instead. The head and
//! tail marks stay in flip-flops, and [`FlowControlUnit::fields_in_flops`]
//! keeps the low bits of each flit (the routing fields) in flip-flops too,
//! so the address decoders downstream start from a flip-flop, not from the
//! RAM's slower output. On the ECP5 the flits may also sit in distributed
//! RAM ([`super::buffer_ram`], distributed), read asynchronously at the read pointer
//! as the flip-flops' multiplexer is, so without a bypass; the routing
//! fields stay in flip-flops as with block RAM. Either way every output
//! equals the flip-flop unit's in every cycle, stale data of an empty
//! buffer included.

use rust_hdl::prelude::*;

use super::buffer_ram::BufferRam;
use super::cosim::InputSignal;
use super::HwBlock;
use crate::limits::MAX_BUFFER_DEPTH;
use crate::spec::BufferStorage;

/// Width of the occupancy and credit counters: they count 0 to
/// [`MAX_BUFFER_DEPTH`] flits.
pub const COUNT_BITS: usize = 5;
const _: () = assert!(MAX_BUFFER_DEPTH < 1 << COUNT_BITS);

type Count = Bits<COUNT_BITS>;

/// All ones over the bits that hold the values 0 to `max`.
pub fn mask_for(max: usize) -> usize {
    (max + 1).next_power_of_two() - 1
}

/// One channel's flit buffer and link flow control for W-bit flits
/// (module documentation; Chien §3).
#[derive(LogicBlock)]
pub struct FlowControlUnit<const W: usize> {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset, active high.
    pub rst: Signal<In, Bit>,
    /// Arriving flit data (W bits).
    pub in_data: Signal<In, Bits<W>>,
    /// A flit arrives this cycle.
    pub in_valid: Signal<In, Bit>,
    /// The arriving flit is a head flit.
    pub in_head: Signal<In, Bit>,
    /// The arriving flit is a tail flit.
    pub in_tail: Signal<In, Bit>,
    /// The oldest flit leaves this cycle (when `out_valid`).
    pub out_ready: Signal<In, Bit>,
    /// Credit mode: a credit from downstream (one pulse per slot
    /// freed); on/off mode: the downstream level.
    pub credit_in: Signal<In, Bit>,
    /// The sender sends a flit this cycle if `send_ok`.
    pub send_req: Signal<In, Bit>,
    /// The oldest flit's data (stale when the buffer is empty).
    pub out_data: Signal<Out, Bits<W>>,
    /// The buffer is not empty.
    pub out_valid: Signal<Out, Bit>,
    /// The oldest flit is a head flit (low when empty).
    pub out_head: Signal<Out, Bit>,
    /// The oldest flit is a tail flit (low when empty).
    pub out_tail: Signal<Out, Bit>,
    /// Credit mode: pulses once per flit that leaves; on/off mode: the
    /// "on" level, high while at least `slack` slots are free.
    pub credit_out: Signal<Out, Bit>,
    /// The downstream buffer can take a flit.
    pub send_ok: Signal<Out, Bit>,
    /// A flit arrived while the buffer was full and was refused.
    pub overflow: Signal<Out, Bit>,
    /// The flit after the oldest one is there and is a head flit: the
    /// router routes it while the tail before it leaves, so that packets
    /// queued back to back in one VC follow each other without a gap.
    pub after_head: Signal<Out, Bit>,
    /// The routing fields of the flit after the oldest one: its low bits
    /// ([`FlowControlUnit::fields_in_flops`]), the others zero.
    pub after_data: Signal<Out, Bits<W>>,
    /// The routing fields of the flit two places after the oldest one,
    /// as `after_data` shows them (the router decodes it one cycle early).
    pub third_data: Signal<Out, Bits<W>>,
    /// Next cycle's oldest flit is the flit after the oldest (the oldest
    /// leaves, two or more are held). With `front_takes_in` also low it
    /// is the same one (or none).
    pub front_takes_after: Signal<Out, Bit>,
    /// Next cycle's oldest flit is the arriving one (it lands first, if
    /// it is written).
    pub front_takes_in: Signal<Out, Bit>,
    /// Next cycle's flit after the oldest is the one two places on (the
    /// oldest leaves, three or more are held). With `after_takes_in` also
    /// low it is the same one (or none).
    pub after_takes_third: Signal<Out, Bit>,
    /// Next cycle's flit after the oldest is the arriving one (it lands
    /// second, if it is written).
    pub after_takes_in: Signal<Out, Bit>,
    /// The flits' data: D flip-flop slots, or with block RAM none.
    slot_data: Vec<DFF<Bits<W>>>,
    /// With block RAM (`BufferStorage::Bram`): the RAM (one), the flit of
    /// the cycle before (one register, loaded every cycle) and whether it
    /// is the oldest flit, that is, whether the RAM's read of this cycle's
    /// front was the entry written in the same edge, which a block RAM
    /// does not return (`super::buffer_ram`). Empty with flip-flops.
    ram: Vec<BufferRam<W>>,
    byp: Vec<DFF<Bits<W>>>,
    byp_sel: Vec<DFF<Bit>>,
    /// With distributed RAM (`BufferStorage::Lutram`): the RAM (one), read
    /// at the read pointer. Empty otherwise.
    lut: Vec<BufferRam<W>>,
    /// With block or distributed RAM and routing fields (`FlowControlUnit::fields_in_flops`):
    /// the low bits of every slot, and of the oldest flit, also in
    /// flip-flops, so that the front flit's routing fields (the address
    /// decoder's input, on the router's critical path) come from a
    /// flip-flop instead of the RAM's output. Empty otherwise.
    slot_low: Vec<DFF<Bits<W>>>,
    front_low: Vec<DFF<Bits<W>>>,
    low_mask: Vec<Constant<Bits<W>>>,
    high_mask: Vec<Constant<Bits<W>>>,
    /// The routing fields' bits (`after_data`; with flip-flops, one) and a
    /// zero word.
    after_mask: Vec<Constant<Bits<W>>>,
    nothing: Constant<Bits<W>>,
    /// The read pointer's next value: the RAM reads that entry.
    raddr: Signal<Local, Count>,
    slot_head: Vec<DFF<Bit>>,
    slot_tail: Vec<DFF<Bit>>,
    /// The oldest flit's head and tail marks (low when empty), kept in
    /// flip-flops of their own so that `out_head` and `out_tail` come
    /// straight from a flip-flop: the router's VC allocation, its critical
    /// path, starts from `out_head`.
    front_head: DFF<Bit>,
    front_tail: DFF<Bit>,
    /// The buffer is not empty, likewise in a flip-flop of its own:
    /// `out_valid` starts the router's switch allocation.
    front_valid: DFF<Bit>,
    /// The head and tail marks of the flit after the oldest one.
    head_after: Signal<Local, Bit>,
    tail_after: Signal<Local, Bit>,
    /// `after_head` in a flip-flop of its own, set from the next state
    /// (the flit that will follow the oldest one and the occupancy), so
    /// that the offer of a head behind a leaving tail, which precedes the
    /// router's VC allocation, starts from a flip-flop.
    second_head: DFF<Bit>,
    /// The head mark two flits after the oldest one (the next
    /// `after_head` when the oldest leaves).
    head_after2: Signal<Local, Bit>,
    /// The read pointer's successor, and its successor.
    rp_inc: Signal<Local, Count>,
    rp_inc2: Signal<Local, Count>,
    rp: DFF<Count>,
    wp: DFF<Count>,
    count: DFF<Count>,
    credits: DFF<Count>,
    pop: Signal<Local, Bit>,
    push: Signal<Local, Bit>,
    send: Signal<Local, Bit>,
    inc: Signal<Local, Bit>,
    dec: Signal<Local, Bit>,
    slot: Vec<Constant<Count>>,
    last: Constant<Count>,
    depth: Constant<Count>,
    one: Constant<Count>,
    two: Constant<Count>,
    zero: Constant<Count>,
    /// The bits the read and write pointers (`ptr_mask`) and the occupancy
    /// (`count_mask`) need: masking their next values keeps the unused
    /// high bits constant, so synthesis drops them and the read
    /// multiplexer selects on ceil(log2 D) bits only.
    ptr_mask: Constant<Count>,
    count_mask: Constant<Count>,
    onoff: Constant<Bit>,
    /// An absent unit ([`FlowControlUnit::absent`]): 1, and one zero word
    /// for `out_data`; 0 and none for a present one, whose update then
    /// holds no trace of the overrides (loops over an empty range).
    _absent: usize,
    blank: Vec<Constant<Bits<W>>>,
    /// On/off: the occupancies at which fewer than `slack` slots are free
    /// (D, D - 1, ..., D - slack + 1).
    full: Vec<Constant<Count>>,
    _d: usize,
    /// Data slots in flip-flops (D, or 0 with RAM), block RAMs (0 or 1)
    /// and distributed RAMs (0 or 1).
    _sd: usize,
    _nram: usize,
    _nlut: usize,
    /// Slots of low bits (D or 0) and front registers of them (1 or 0),
    /// the latter with block RAM and with distributed RAM (1 or 0 each).
    _sl: usize,
    _nlow: usize,
    _nlow_ram: usize,
    _nlow_lut: usize,
    _low_bits: usize,
    _storage: BufferStorage,
    _slack: usize,
}

impl<const W: usize> FlowControlUnit<W> {
    /// A unit with a `depth`-flit buffer (1 to [`MAX_BUFFER_DEPTH`]); `on_off`
    /// selects on/off flow control (slack 1) instead of credits.
    pub fn new(depth: usize, on_off: bool) -> crate::Result<Self> {
        Self::check(depth)?;
        Ok(Self::new_unchecked(depth, on_off))
    }

    /// An on/off unit with a `depth`-flit buffer (1 to [`MAX_BUFFER_DEPTH`]) whose
    /// level is high while at least `slack` slots are free (1 to `depth`).
    pub fn on_off(depth: usize, slack: usize) -> crate::Result<Self> {
        Self::check(depth)?;
        super::check_size(
            "flow-control unit",
            "on/off slack (free slots)",
            slack,
            (1, depth),
            "the level needs that many free slots of the buffer",
        )?;
        Ok(Self::on_off_unchecked(depth, slack))
    }

    /// [`FlowControlUnit::new`] for callers whose depth is validated (out
    /// of range depths are clamped).
    pub(crate) fn new_unchecked(depth: usize, on_off: bool) -> Self {
        Self::build(depth, on_off, 1, BufferStorage::Flops, 0)
    }

    /// [`FlowControlUnit::on_off`] for callers whose sizes are validated
    /// (out of range sizes are clamped).
    pub(crate) fn on_off_unchecked(depth: usize, slack: usize) -> Self {
        Self::build(depth, true, slack, BufferStorage::Flops, 0)
    }

    fn check(depth: usize) -> crate::Result<()> {
        super::check_width::<W>("flow-control unit")?;
        super::check_size(
            "flow-control unit",
            "buffer depth D (flits)",
            depth,
            (1, MAX_BUFFER_DEPTH as usize),
            "the occupancy and credit counters are COUNT_BITS = 5 bits wide",
        )
    }

    /// This unit with its flits' data in `storage`; the behaviour at the
    /// ports is the same, cycle by cycle.
    pub fn stored_in(self, storage: BufferStorage) -> Self {
        Self::build(
            self._d,
            self.onoff.val(),
            self._slack,
            storage,
            self._low_bits,
        )
        .absent_if(self._absent == 1)
    }

    /// The low `bits` bits of every flit are its routing fields (at most
    /// W, more are taken as W): `after_data` shows them. With block or distributed RAM
    /// they are also kept in flip-flops, so `out_data`'s low bits come
    /// from a flip-flop; the behaviour is the same.
    pub fn fields_in_flops(self, bits: usize) -> Self {
        let storage = self._storage;
        Self::build(self._d, self.onoff.val(), self._slack, storage, bits)
            .absent_if(self._absent == 1)
    }

    /// This unit as the buffer of an input VC no flit may arrive on (the
    /// routing relation never sends on that VC over the link): every
    /// output held low, `out_data` zero, and a flit offered is refused with
    /// `overflow`. Nothing it holds can then be seen, so synthesis keeps
    /// none of its flip-flops.
    pub fn absent(self) -> Self {
        self.absent_if(true)
    }

    fn absent_if(mut self, absent: bool) -> Self {
        self._absent = usize::from(absent);
        self.blank = (0..self._absent)
            .map(|_| Constant::new(Bits::<W>::default()))
            .collect();
        self
    }

    /// Whether flits may arrive (false for [`FlowControlUnit::absent`]).
    pub fn is_present(&self) -> bool {
        self._absent == 0
    }

    fn build(
        depth: usize,
        on_off: bool,
        slack: usize,
        storage: BufferStorage,
        low_bits: usize,
    ) -> Self {
        let d = depth.clamp(1, MAX_BUFFER_DEPTH as usize);
        let slack = slack.clamp(1, d);
        let nram = usize::from(storage == BufferStorage::Bram);
        let nlut = usize::from(storage == BufferStorage::Lutram);
        let nstore = nram + nlut;
        let low_bits = low_bits.min(W);
        let nlow = nstore * usize::from(low_bits > 0);
        let low = if low_bits >= 64 {
            u64::MAX
        } else {
            (1u64 << low_bits) - 1
        };
        let low = Bits::<W>::from(low);
        let c = |v: usize| Constant::new(Count::from(v as u64));
        FlowControlUnit {
            clock: Signal::default(),
            rst: Signal::default(),
            in_data: Signal::default(),
            in_valid: Signal::default(),
            in_head: Signal::default(),
            in_tail: Signal::default(),
            out_ready: Signal::default(),
            credit_in: Signal::default(),
            send_req: Signal::default(),
            out_data: Signal::default(),
            out_valid: Signal::default(),
            out_head: Signal::default(),
            out_tail: Signal::default(),
            credit_out: Signal::default(),
            send_ok: Signal::default(),
            overflow: Signal::default(),
            after_head: Signal::default(),
            after_data: Signal::default(),
            third_data: Signal::default(),
            front_takes_after: Signal::default(),
            front_takes_in: Signal::default(),
            after_takes_third: Signal::default(),
            after_takes_in: Signal::default(),
            after_mask: (0..1 - nstore).map(|_| Constant::new(low)).collect(),
            nothing: Constant::new(Bits::<W>::default()),
            slot_data: (0..d * (1 - nstore)).map(|_| DFF::default()).collect(),
            ram: (0..nram).map(|_| BufferRam::new_unchecked(d)).collect(),
            byp: (0..nram).map(|_| DFF::default()).collect(),
            byp_sel: (0..nram).map(|_| DFF::default()).collect(),
            lut: (0..nlut)
                .map(|_| BufferRam::new_unchecked(d).distributed())
                .collect(),
            slot_low: (0..d * nlow).map(|_| DFF::default()).collect(),
            front_low: (0..nlow).map(|_| DFF::default()).collect(),
            low_mask: (0..nlow).map(|_| Constant::new(low)).collect(),
            high_mask: (0..nlow).map(|_| Constant::new(!low)).collect(),
            raddr: Signal::default(),
            slot_head: (0..d).map(|_| DFF::default()).collect(),
            slot_tail: (0..d).map(|_| DFF::default()).collect(),
            front_head: DFF::default(),
            front_tail: DFF::default(),
            front_valid: DFF::default(),
            head_after: Signal::default(),
            tail_after: Signal::default(),
            second_head: DFF::default(),
            head_after2: Signal::default(),
            rp_inc: Signal::default(),
            rp_inc2: Signal::default(),
            rp: DFF::default(),
            wp: DFF::default(),
            count: DFF::default(),
            credits: DFF::default(),
            pop: Signal::default(),
            push: Signal::default(),
            send: Signal::default(),
            inc: Signal::default(),
            dec: Signal::default(),
            slot: (0..d).map(c).collect(),
            last: c(d - 1),
            depth: c(d),
            one: c(1),
            two: c(2),
            zero: c(0),
            ptr_mask: c(mask_for(d - 1)),
            count_mask: c(mask_for(d)),
            onoff: Constant::new(on_off),
            _absent: 0,
            blank: Vec::new(),
            full: (0..slack).map(|j| c(d - j)).collect(),
            _d: d,
            _sd: d * (1 - nstore),
            _nram: nram,
            _nlut: nlut,
            _sl: d * nlow,
            _nlow: nlow,
            _nlow_ram: nram * nlow,
            _nlow_lut: nlut * nlow,
            _low_bits: low_bits,
            _storage: storage,
            _slack: slack,
        }
    }
}

impl<const W: usize> Logic for FlowControlUnit<W> {
    #[hdl_gen]
    fn update(&mut self) {
        for k in 0..self._sd {
            self.slot_data[k].clock.next = self.clock.val();
            self.slot_data[k].d.next = self.slot_data[k].q.val();
        }
        for k in 0..self._d {
            self.slot_head[k].clock.next = self.clock.val();
            self.slot_tail[k].clock.next = self.clock.val();
            self.slot_head[k].d.next = self.slot_head[k].q.val();
            self.slot_tail[k].d.next = self.slot_tail[k].q.val();
        }
        self.front_head.clock.next = self.clock.val();
        self.front_tail.clock.next = self.clock.val();
        self.front_valid.clock.next = self.clock.val();
        self.second_head.clock.next = self.clock.val();
        self.rp.clock.next = self.clock.val();
        self.wp.clock.next = self.clock.val();
        self.count.clock.next = self.clock.val();
        self.credits.clock.next = self.clock.val();
        self.wp.d.next = self.wp.q.val();
        self.count.d.next = self.count.q.val();
        self.credits.d.next = self.credits.q.val();

        // Receive side: the oldest flit (the data ungated when empty).
        self.out_valid.next = self.front_valid.q.val();
        for _k in 0..self._absent {
            self.out_valid.next = false;
        }
        // Flip-flops: the slot at the read pointer (slot 0's as the
        // default). Block RAM: the read of the last edge, or the bypass; distributed RAM: its
        // read at the read pointer.
        for k in 0..self._sd.min(1) {
            self.out_data.next = self.slot_data[k].q.val();
        }
        for k in 0..self._sd {
            if self.rp.q.val() == self.slot[k].val() {
                self.out_data.next = self.slot_data[k].q.val();
            }
        }
        for k in 0..self._nram {
            if self.byp_sel[k].q.val() {
                self.out_data.next = self.byp[k].q.val();
            } else {
                self.out_data.next = self.ram[k].read_data.val();
            }
        }
        for k in 0..self._nlut {
            self.out_data.next = self.lut[k].read_data.val();
        }
        for k in 0..self._nlow_ram {
            if self.byp_sel[k].q.val() {
                self.out_data.next =
                    (self.byp[k].q.val() & self.high_mask[k].val()) | self.front_low[k].q.val();
            } else {
                self.out_data.next = (self.ram[k].read_data.val() & self.high_mask[k].val())
                    | self.front_low[k].q.val();
            }
        }
        for k in 0..self._nlow_lut {
            self.out_data.next =
                (self.lut[k].read_data.val() & self.high_mask[k].val()) | self.front_low[k].q.val();
        }
        for k in 0..self._absent {
            self.out_data.next = self.blank[k].val();
        }
        self.out_head.next = self.front_head.q.val();
        self.out_tail.next = self.front_tail.q.val();
        for _k in 0..self._absent {
            self.out_head.next = false;
            self.out_tail.next = false;
        }
        if self.rp.q.val() == self.last.val() {
            self.rp_inc.next = self.zero.val();
        } else {
            self.rp_inc.next = (self.rp.q.val() + self.one.val()) & self.ptr_mask.val();
        }
        self.head_after.next = false;
        self.tail_after.next = false;
        for k in 0..self._d {
            if self.rp_inc.val() == self.slot[k].val() {
                self.head_after.next = self.slot_head[k].q.val();
                self.tail_after.next = self.slot_tail[k].q.val();
            }
        }
        if self.rp_inc.val() == self.last.val() {
            self.rp_inc2.next = self.zero.val();
        } else {
            self.rp_inc2.next = (self.rp_inc.val() + self.one.val()) & self.ptr_mask.val();
        }
        self.head_after2.next = false;
        for k in 0..self._d {
            if self.rp_inc2.val() == self.slot[k].val() {
                self.head_after2.next = self.slot_head[k].q.val();
            }
        }
        // The flit after the oldest (two or more held), from its flip-flop.
        self.after_head.next = self.second_head.q.val();
        self.after_data.next = self.nothing.val();
        for k in 0..self._sd {
            if self.rp_inc.val() == self.slot[k].val() {
                self.after_data.next = self.slot_data[k].q.val() & self.after_mask[0].val();
            }
        }
        for k in 0..self._sl {
            if self.rp_inc.val() == self.slot[k].val() {
                self.after_data.next = self.slot_low[k].q.val();
            }
        }
        self.third_data.next = self.nothing.val();
        for k in 0..self._sd {
            if self.rp_inc2.val() == self.slot[k].val() {
                self.third_data.next = self.slot_data[k].q.val() & self.after_mask[0].val();
            }
        }
        for k in 0..self._sl {
            if self.rp_inc2.val() == self.slot[k].val() {
                self.third_data.next = self.slot_low[k].q.val();
            }
        }
        for _k in 0..self._absent {
            self.after_head.next = false;
            self.after_data.next = self.nothing.val();
            self.third_data.next = self.nothing.val();
        }
        self.pop.next = self.out_valid.val() & self.out_ready.val();
        // Where the next front flit and the next flit after it come from,
        // as the marks below take them.
        self.front_takes_after.next = self.pop.val() & (self.count.q.val() != self.one.val());
        self.front_takes_in.next = (self.pop.val() & (self.count.q.val() == self.one.val()))
            | (!self.pop.val() & (self.count.q.val() == self.zero.val()));
        self.after_takes_third.next = self.pop.val()
            & (self.count.q.val() != self.one.val())
            & (self.count.q.val() != self.two.val());
        self.after_takes_in.next = (self.pop.val() & (self.count.q.val() == self.two.val()))
            | (!self.pop.val() & (self.count.q.val() == self.one.val()));
        for _k in 0..self._absent {
            self.front_takes_in.next = false;
            self.after_takes_in.next = false;
        }
        // Full: refuse the flit, never overwrite (independent of the pop,
        // see the module documentation).
        self.push.next = self.in_valid.val() & (self.count.q.val() != self.depth.val());
        for _k in 0..self._absent {
            self.push.next = false;
        }
        self.overflow.next = self.in_valid.val() & !self.push.val();
        // The next oldest flit's marks: the arriving flit's when it lands
        // in an empty buffer (or one whose only flit leaves), else the
        // slot's after the read pointer (a pop) or the same ones.
        self.front_head.d.next = self.front_head.q.val();
        self.front_tail.d.next = self.front_tail.q.val();
        // Not empty next: a flit arrives, or one stays after the pop.
        if self.pop.val() {
            self.front_valid.d.next = self.push.val() | (self.count.q.val() != self.one.val());
        } else {
            self.front_valid.d.next = self.push.val() | (self.count.q.val() != self.zero.val());
        }
        if self.pop.val() {
            if self.count.q.val() == self.one.val() {
                self.front_head.d.next = self.push.val() & self.in_head.val();
                self.front_tail.d.next = self.push.val() & self.in_tail.val();
            } else {
                self.front_head.d.next = self.head_after.val();
                self.front_tail.d.next = self.tail_after.val();
            }
        } else if self.count.q.val() == self.zero.val() {
            self.front_head.d.next = self.push.val() & self.in_head.val();
            self.front_tail.d.next = self.push.val() & self.in_tail.val();
        }
        // The next flit after the oldest: the same one while the oldest
        // stays and two or more are held; the one two after the oldest when
        // it leaves and three or more are held; the arriving flit when it
        // lands second (one held and none leaves, or two and one leaves).
        self.second_head.d.next = self.second_head.q.val();
        if self.pop.val() {
            if self.count.q.val() == self.one.val() {
                self.second_head.d.next = false;
            } else if self.count.q.val() == self.two.val() {
                self.second_head.d.next = self.push.val() & self.in_head.val();
            } else {
                self.second_head.d.next = self.head_after2.val();
            }
        } else if self.count.q.val() == self.zero.val() {
            self.second_head.d.next = false;
        } else if self.count.q.val() == self.one.val() {
            self.second_head.d.next = self.push.val() & self.in_head.val();
        }
        if self.push.val() {
            for k in 0..self._sd {
                if self.wp.q.val() == self.slot[k].val() {
                    self.slot_data[k].d.next = self.in_data.val();
                }
            }
            for k in 0..self._d {
                if self.wp.q.val() == self.slot[k].val() {
                    self.slot_head[k].d.next = self.in_head.val();
                    self.slot_tail[k].d.next = self.in_tail.val();
                }
            }
            if self.wp.q.val() == self.last.val() {
                self.wp.d.next = self.zero.val();
            } else {
                self.wp.d.next = (self.wp.q.val() + self.one.val()) & self.ptr_mask.val();
            }
        }
        // The read pointer's next value (also the RAM's read address).
        self.raddr.next = self.rp.q.val();
        if self.pop.val() {
            self.raddr.next = self.rp_inc.val();
        }
        if self.rst.val() {
            self.raddr.next = self.zero.val();
        }
        self.rp.d.next = self.raddr.val();
        for k in 0..self._nram {
            self.ram[k].clock.next = self.clock.val();
            self.ram[k].write_enable.next = self.push.val();
            self.ram[k].write_address.next = self.wp.q.val();
            self.ram[k].write_data.next = self.in_data.val();
            self.ram[k].read_address.next = self.raddr.val();
            self.byp[k].clock.next = self.clock.val();
            self.byp[k].d.next = self.in_data.val();
            self.byp_sel[k].clock.next = self.clock.val();
            // The RAM's read of this edge is the entry it writes: the
            // flit lands at the front (an empty buffer, or its only flit
            // leaves), and next cycle shows it from the bypass.
            self.byp_sel[k].d.next = self.push.val() & (self.raddr.val() == self.wp.q.val());
        }
        for k in 0..self._nlut {
            self.lut[k].clock.next = self.clock.val();
            self.lut[k].write_enable.next = self.push.val();
            self.lut[k].write_address.next = self.wp.q.val();
            self.lut[k].write_data.next = self.in_data.val();
            self.lut[k].read_address.next = self.rp.q.val();
        }
        for k in 0..self._sl {
            self.slot_low[k].clock.next = self.clock.val();
            self.slot_low[k].d.next = self.slot_low[k].q.val();
            if self.push.val() & (self.wp.q.val() == self.slot[k].val()) {
                self.slot_low[k].d.next = self.in_data.val() & self.low_mask[0].val();
            }
        }
        for k in 0..self._nlow {
            // What the RAM and the bypass show next, in flip-flops: the
            // slot at the read pointer's next value, or the flit written
            // into it in this edge.
            self.front_low[k].clock.next = self.clock.val();
            self.front_low[k].d.next = self.front_low[k].q.val();
            for j in 0..self._sl {
                if self.raddr.val() == self.slot[j].val() {
                    self.front_low[k].d.next = self.slot_low[j].q.val();
                }
            }
            if self.push.val() & (self.raddr.val() == self.wp.q.val()) {
                self.front_low[k].d.next = self.in_data.val() & self.low_mask[k].val();
            }
        }
        if self.push.val() & !self.pop.val() {
            self.count.d.next = (self.count.q.val() + self.one.val()) & self.count_mask.val();
        }
        if self.pop.val() & !self.push.val() {
            self.count.d.next = (self.count.q.val() - self.one.val()) & self.count_mask.val();
        }
        if self.onoff.val() {
            // On/off: "on" while at least `slack` slots are free.
            self.credit_out.next = true;
            for j in 0..self._slack {
                if self.count.q.val() == self.full[j].val() {
                    self.credit_out.next = false;
                }
            }
        } else {
            self.credit_out.next = self.pop.val();
        }
        for _k in 0..self._absent {
            self.credit_out.next = false;
        }

        // Send side.
        if self.onoff.val() {
            self.send_ok.next = self.credit_in.val();
        } else {
            self.send_ok.next = self.credits.q.val() != self.zero.val();
        }
        for _k in 0..self._absent {
            self.send_ok.next = false;
        }
        self.send.next = self.send_req.val() & self.send_ok.val();
        // A credit pulse when the counter is already at D is ignored.
        self.inc.next =
            !self.onoff.val() & self.credit_in.val() & (self.credits.q.val() != self.depth.val());
        self.dec.next = !self.onoff.val() & self.send.val();
        if self.inc.val() & !self.dec.val() {
            self.credits.d.next = self.credits.q.val() + self.one.val();
        }
        if self.dec.val() & !self.inc.val() {
            self.credits.d.next = self.credits.q.val() - self.one.val();
        }

        if self.rst.val() {
            self.front_head.d.next = false;
            self.front_tail.d.next = false;
            self.front_valid.d.next = false;
            self.second_head.d.next = false;
            self.wp.d.next = self.zero.val();
            self.count.d.next = self.zero.val();
            self.credits.d.next = self.depth.val();
        }
    }
}

impl<const W: usize> HwBlock for FlowControlUnit<W> {
    fn clock_mut(&mut self) -> Option<&mut Signal<In, Clock>> {
        Some(&mut self.clock)
    }
    fn visit_inputs(&mut self, f: &mut dyn FnMut(&mut dyn InputSignal)) {
        f(&mut self.rst);
        f(&mut self.in_data);
        f(&mut self.in_valid);
        f(&mut self.in_head);
        f(&mut self.in_tail);
        f(&mut self.out_ready);
        f(&mut self.credit_in);
        f(&mut self.send_req);
    }
}

#[cfg(test)]
mod tests {
    use std::collections::VecDeque;

    use super::*;
    use crate::blocks::cosim::{random_stimulus, run_model, SplitMix64};
    use crate::blocks::tool_checks::all_checks;
    use crate::blocks::{emit, prepare, BlockKind, BlockParams};

    /// Reference unit written from the module doc; outputs in port order:
    /// data, valid, head, tail, credit_out, send_ok, overflow, after_head,
    /// after_data (the low [`FIELDS`] bits; [`STALE`] when fewer than two
    /// flits are held: unspecified then), third_data (likewise, three),
    /// front_takes_after, front_takes_in, after_takes_third, after_takes_in.
    const FIELDS: usize = 5;
    const STALE: u64 = u64::MAX;

    struct Reference {
        d: usize,
        on_off: bool,
        /// On/off: free slots needed for the level to be high.
        slack: usize,
        buf: VecDeque<(u64, bool, bool)>,
        credits: usize,
    }

    impl Reference {
        fn step(&mut self, r: &[u64]) -> Vec<u64> {
            let (rst, data, valid, head, tail) = (r[0] == 1, r[1], r[2] == 1, r[3] == 1, r[4] == 1);
            let (out_ready, credit_in, send_req) = (r[5] == 1, r[6] == 1, r[7] == 1);
            let front = self.buf.front().copied().unwrap_or((0, false, false));
            let out_valid = !self.buf.is_empty();
            let pop = out_valid && out_ready;
            let push = valid && self.buf.len() < self.d;
            let credit_out = if self.on_off {
                self.d - self.buf.len() >= self.slack
            } else {
                pop
            };
            let send_ok = if self.on_off {
                credit_in
            } else {
                self.credits > 0
            };
            let out = vec![
                front.0,
                u64::from(out_valid),
                u64::from(front.1),
                u64::from(front.2),
                u64::from(credit_out),
                u64::from(send_ok),
                u64::from(valid && !push),
                u64::from(self.buf.get(1).is_some_and(|f| f.1)),
                self.buf.get(1).map_or(STALE, |f| f.0 & ((1 << FIELDS) - 1)),
                self.buf.get(2).map_or(STALE, |f| f.0 & ((1 << FIELDS) - 1)),
                u64::from(pop && self.buf.len() >= 2),
                u64::from(if pop {
                    self.buf.len() == 1
                } else {
                    self.buf.is_empty()
                }),
                u64::from(pop && self.buf.len() >= 3),
                u64::from(if pop {
                    self.buf.len() == 2
                } else {
                    self.buf.len() == 1
                }),
            ];
            if pop {
                self.buf.pop_front();
            }
            if push {
                self.buf.push_back((data, head, tail));
            }
            if !self.on_off {
                let inc = credit_in && self.credits < self.d;
                let dec = send_req && send_ok;
                self.credits = self.credits + usize::from(inc) - usize::from(dec);
            }
            if rst {
                self.buf.clear();
                self.credits = self.d;
            }
            out
        }
    }

    #[test]
    fn matches_the_reference_on_random_stimulus() {
        for (d, on_off, slack, storage) in [
            (1, false, 1, BufferStorage::Flops),
            (3, false, 1, BufferStorage::Flops),
            (4, true, 1, BufferStorage::Flops),
            (16, false, 1, BufferStorage::Flops),
            (5, true, 2, BufferStorage::Flops),
            (2, true, 2, BufferStorage::Flops),
            (1, false, 1, BufferStorage::Bram),
            (3, false, 1, BufferStorage::Bram),
            (4, true, 2, BufferStorage::Bram),
            (16, false, 1, BufferStorage::Bram),
            (1, false, 1, BufferStorage::Lutram),
            (3, true, 2, BufferStorage::Lutram),
            (16, false, 1, BufferStorage::Lutram),
        ] {
            let mut x = FlowControlUnit::<16>::build(d, on_off, slack, storage, FIELDS);
            prepare(&mut x);
            let stim = random_stimulus(&x, "clock", 3000, 99 + d as u64);
            let got = run_model(&mut x, &stim);
            // The random stimulus is not held to the protocol: overflows,
            // underflow attempts and spurious credits all occur.
            let mut r = Reference {
                d,
                on_off,
                slack,
                buf: VecDeque::new(),
                credits: 0,
            };
            let mut overflows = 0;
            for (c, s) in stim.iter().enumerate() {
                let want = r.step(s);
                overflows += want[6];
                // The data of an empty buffer is unspecified.
                let mut got = got[c].clone();
                if got[1] == 0 {
                    got[0] = 0;
                }
                for j in [8, 9] {
                    if want[j] == STALE {
                        got[j] = STALE;
                    }
                }
                assert_eq!(got, want, "D={d} on_off={on_off} {storage} cycle {c}");
            }
            assert!(overflows > 0, "the stimulus should reach a full buffer");
        }
    }

    /// An absent unit (module doc of [`FlowControlUnit::absent`]): under
    /// stimulus that fills a present unit, every output stays low but
    /// `overflow`, which follows `in_valid`; Yosys keeps none of its
    /// flip-flops, where the present unit keeps its counters (and with
    /// flip-flop storage its D W data bits). A present unit's Verilog is
    /// the same as before the option existed: no trace of it.
    #[test]
    fn an_absent_unit_shows_nothing_and_synthesizes_to_no_flip_flop() {
        for (on_off, storage) in [
            (false, BufferStorage::Flops),
            (true, BufferStorage::Flops),
            (false, BufferStorage::Bram),
            (false, BufferStorage::Lutram),
        ] {
            let unit = || FlowControlUnit::<16>::build(4, on_off, 2, storage, 5);
            let mut x = unit().absent();
            assert!(!x.is_present() && unit().is_present());
            prepare(&mut x);
            let stim = random_stimulus(&x, "clock", 2000, 7);
            let got = run_model(&mut x, &stim);
            let mut offered = 0;
            for (c, (s, g)) in stim.iter().zip(&got).enumerate() {
                // Inputs: rst, data, valid, ...; outputs in port order with
                // overflow last.
                offered += s[2];
                let mut want = vec![0; g.len()];
                want[6] = s[2];
                assert_eq!(g, &want, "on_off={on_off} {storage} cycle {c}");
            }
            assert!(offered > 100, "the stimulus offers flits");
            let text = emit(unit(), "fcu").expect("written");
            assert!(
                !text.contains("blank"),
                "a present unit's Verilog names no override"
            );
            if !crate::flows::require_tool("yosys") {
                continue;
            }
            let flops = |v: String| {
                crate::flows::yosys::synth(&v, "fcu")
                    .expect("yosys synth")
                    .flip_flops()
            };
            assert_eq!(
                flops(emit(unit().absent(), "fcu").expect("written")),
                0,
                "on_off={on_off} {storage}"
            );
            let data = if storage == BufferStorage::Flops {
                4 * 16
            } else {
                0
            };
            assert!(flops(text) >= data + 4, "on_off={on_off} {storage}");
        }
    }

    /// Two units joined by a link: the upstream unit's send side feeds the
    /// downstream unit's buffer, whose credits (or on level) go back. The
    /// sender obeys `send_ok`, with the downstream stalling for long
    /// stretches. With `registered`, the on level reaches the sender through
    /// a flip-flop, as in the router: the level of cycle t governs cycle
    /// t + 1. Returns the flits refused for a full buffer; when there are
    /// none, also checks nothing was lost or reordered.
    fn link(d: usize, on_off: Option<(usize, bool)>, seed: u64) -> usize {
        let (mut up, mut down) = match on_off {
            None => (
                FlowControlUnit::<16>::new(d, false).unwrap(),
                FlowControlUnit::<16>::new(d, false).unwrap(),
            ),
            Some((slack, _)) => (
                FlowControlUnit::<16>::on_off(d, slack).unwrap(),
                FlowControlUnit::<16>::on_off(d, slack).unwrap(),
            ),
        };
        let registered = on_off.is_some_and(|(_, r)| r);
        prepare(&mut up);
        prepare(&mut down);
        let mut rng = SplitMix64::new(seed);
        let (mut sent, mut received) = (0u64, Vec::new());
        let mut overflows = 0;
        let mut seen = false;
        let settle = |b: &mut FlowControlUnit<16>| {
            simulate(b, 1000);
        };
        for cycle in 0..4000 {
            let rst = cycle == 0;
            let stall = (cycle / 200) % 2 == 1; // long full-buffer stretches
            up.rst.next = rst;
            down.rst.next = rst;
            up.clock.next = Clock::from(false);
            down.clock.next = Clock::from(false);
            up.send_req.next = rng.chance(0.7);
            down.out_ready.next = !stall && rng.chance(0.5);
            // On/off: the level is a function of the downstream state only.
            settle(&mut down);
            let level = down.credit_out.val();
            up.credit_in.next = if registered { seen } else { level };
            settle(&mut up);
            let send = !rst && up.send_req.val() && up.send_ok.val();
            down.in_valid.next = send;
            down.in_data.next = Bits::<16>::from(sent & 0xffff);
            settle(&mut down);
            overflows += usize::from(down.overflow.val());
            if down.out_valid.val() && down.out_ready.val() {
                received.push(down.out_data.val().to_u64());
            }
            // Credit mode: the credit pulse of this cycle's pop.
            if on_off.is_none() {
                up.credit_in.next = down.credit_out.val();
            }
            settle(&mut up);
            if send {
                sent += 1;
            }
            seen = level && !rst;
            up.clock.next = Clock::from(true);
            down.clock.next = Clock::from(true);
            settle(&mut up);
            settle(&mut down);
        }
        assert!(sent > 400, "the link should carry traffic (sent {sent})");
        if overflows == 0 {
            let want: Vec<u64> = (0..received.len() as u64).map(|v| v & 0xffff).collect();
            assert_eq!(received, want, "flits lost or reordered");
            assert!(
                sent - received.len() as u64 <= d as u64,
                "more in flight than the buffer holds"
            );
        }
        overflows
    }

    #[test]
    fn a_sender_that_obeys_credits_never_overflows_or_loses_a_flit() {
        assert_eq!(link(1, None, 1), 0);
        assert_eq!(link(4, None, 2), 0);
        assert_eq!(link(4, Some((1, false)), 3), 0);
    }

    /// The router's timing: the level passes a flip-flop before the sender
    /// obeys it, so a flit sent on the level of cycle t - 1 arrives in t,
    /// after the level of t was computed without it, and the level of t
    /// lets one more through in t + 1. Two free slots (slack 2) keep the
    /// buffer from overflowing, also at the smallest depth, 2; slack 1
    /// overflows.
    #[test]
    fn a_registered_on_level_needs_two_free_slots() {
        assert_eq!(link(2, Some((2, true)), 4), 0);
        assert_eq!(link(5, Some((2, true)), 5), 0);
        let refused = link(5, Some((1, true)), 6);
        assert!(
            refused > 0,
            "slack 1 with a registered level should overflow"
        );
    }

    #[test]
    fn reset_in_the_middle_of_a_packet_empties_the_buffer() {
        let mut x = FlowControlUnit::<8>::new(4, false).unwrap();
        prepare(&mut x);
        // rst, data, valid, head, tail, out_ready, credit_in, send_req
        let stim = vec![
            vec![1, 0, 0, 0, 0, 0, 0, 0],
            vec![0, 0x11, 1, 1, 0, 0, 0, 1],
            vec![0, 0x22, 1, 0, 0, 0, 0, 1],
            vec![1, 0x33, 1, 0, 0, 0, 0, 0],
            vec![0, 0, 0, 0, 0, 1, 0, 0],
        ];
        let out = run_model(&mut x, &stim);
        assert_eq!(&out[2][..2], &[0x11, 1], "head flit at the front");
        assert_eq!(out[4][1], 0, "empty after reset");
        assert_eq!(out[4][5], 1, "credits restored");
        assert_eq!(out[3][5], 1, "two of four credits left before reset");
    }

    /// Block RAM changes where the flits are kept, not what the unit
    /// shows: every output, the data of an empty buffer included, equals
    /// the flip-flop unit's in every cycle of a random stimulus (which
    /// resets, overflows and underflows), also with low bits (routing
    /// fields) kept in flip-flops as well.
    #[test]
    fn block_ram_storage_shows_what_flip_flops_show_every_cycle() {
        storage_shows_what_flip_flops_show(BufferStorage::Bram);
    }

    /// The same for distributed RAM.
    #[test]
    fn distributed_ram_storage_shows_what_flip_flops_show_every_cycle() {
        storage_shows_what_flip_flops_show(BufferStorage::Lutram);
    }

    fn storage_shows_what_flip_flops_show(storage: BufferStorage) {
        for (d, on_off, low, seed) in [
            (1, false, 0, 1),
            (2, true, 0, 2),
            (4, false, 0, 3),
            (7, false, 0, 4),
            (1, false, 3, 5),
            (4, true, 6, 6),
            (5, false, 16, 7),
        ] {
            let mut flops = FlowControlUnit::<16>::new(d, on_off)
                .unwrap()
                .fields_in_flops(low);
            let mut ram = FlowControlUnit::<16>::new(d, on_off)
                .unwrap()
                .stored_in(storage)
                .fields_in_flops(low);
            prepare(&mut flops);
            prepare(&mut ram);
            let stim = random_stimulus(&flops, "clock", 4000, seed);
            let want = run_model(&mut flops, &stim);
            let got = run_model(&mut ram, &stim);
            let bypassed = (1..stim.len())
                .filter(|&c| got[c][1] == 1 && got[c - 1][1] == 0)
                .count();
            assert!(bypassed > 50, "D={d}: flits should land in an empty buffer");
            for c in 0..stim.len() {
                assert_eq!(
                    got[c], want[c],
                    "{storage} D={d} on_off={on_off} low {low} cycle {c}"
                );
            }
        }
    }

    /// A flit written into an empty block-RAM buffer is shown next cycle
    /// from the bypass register: the RAM's read of that edge returns the
    /// old entry (the model and the Verilog read first; the hardware's is
    /// undefined). The co-simulation below catches a Verilog copy without
    /// the bypass.
    #[test]
    fn the_bypass_shows_a_flit_written_into_an_empty_ram_buffer() {
        let mut x = FlowControlUnit::<8>::new(2, false)
            .unwrap()
            .stored_in(BufferStorage::Bram);
        prepare(&mut x);
        // rst, data, valid, head, tail, out_ready, credit_in, send_req
        let stim = vec![
            vec![1, 0, 0, 0, 0, 0, 0, 0],
            vec![0, 0x11, 1, 1, 0, 0, 0, 0],
            vec![0, 0x22, 1, 0, 0, 1, 0, 0],
            vec![0, 0x33, 1, 0, 1, 1, 0, 0],
            vec![0, 0, 0, 0, 0, 1, 0, 0],
            vec![0, 0x44, 1, 1, 1, 0, 0, 0],
            vec![0, 0, 0, 0, 0, 1, 0, 0],
        ];
        let out = run_model(&mut x, &stim);
        let fronts: Vec<[u64; 2]> = out.iter().map(|o| [o[0], o[1]]).collect();
        // Each flit lands at the front of an empty buffer (or one whose
        // only flit leaves), so each is shown from the bypass.
        assert_eq!(&fronts[2..5], &[[0x11, 1], [0x22, 1], [0x33, 1]]);
        assert_eq!(fronts[5][1], 0, "empty");
        assert_eq!(fronts[6], [0x44, 1]);
    }

    /// Yosys puts the block-RAM unit's flits into iCE40 block RAM: no
    /// data flip-flops but the bypass register, where the flip-flop unit
    /// has D W of them.
    #[test]
    fn yosys_maps_the_ram_buffer_to_ice40_block_ram() {
        if !crate::flows::require_tool("yosys") {
            return;
        }
        let params = |buffers| BlockParams {
            depth: 4,
            flit_width: 32,
            buffers,
            ..BlockParams::default()
        };
        let stats = |buffers| {
            let p = params(buffers);
            let top = BlockKind::FlowControlUnit.module_name(&p);
            let v = BlockKind::FlowControlUnit.verilog(&p).expect("valid");
            crate::flows::yosys::synth_ice40(&v, &top).expect("synth_ice40")
        };
        let (flops, ram) = (stats(BufferStorage::Flops), stats(BufferStorage::Bram));
        assert_eq!(flops.rams(), 0);
        assert!(flops.flip_flops() >= 4 * 32, "flip-flop unit: {flops:?}");
        assert!(
            ram.rams() >= 2,
            "32-bit flits take two 16-bit-wide RAMs: {ram:?}"
        );
        // D W data flip-flops leave; the bypass word (W) and its select
        // come in (a few more for the RAM's read address at most).
        assert!(
            ram.flip_flops() + 3 * 32 - 8 <= flops.flip_flops(),
            "RAM unit keeps only the bypass word in flip-flops: {ram:?} against {flops:?}"
        );
        assert!(ram.luts() < flops.luts(), "{ram:?} against {flops:?}");
    }

    /// Yosys puts the distributed-RAM unit's flits into the ECP5's RAM
    /// slices (TRELLIS_DPR16X4, 4 bits each: W / 4 of them), with no data
    /// flip-flops, where the flip-flop unit has D W of them.
    #[test]
    fn yosys_maps_the_lutram_buffer_to_ecp5_distributed_ram() {
        if !crate::flows::require_tool("yosys") {
            return;
        }
        let stats = |buffers| {
            let p = BlockParams {
                depth: 4,
                flit_width: 32,
                buffers,
                ..BlockParams::default()
            };
            let top = BlockKind::FlowControlUnit.module_name(&p);
            let v = BlockKind::FlowControlUnit.verilog(&p).expect("valid");
            crate::flows::yosys::synth_ecp5(&v, &top).expect("synth_ecp5")
        };
        let (flops, lut) = (stats(BufferStorage::Flops), stats(BufferStorage::Lutram));
        assert_eq!(flops.count("TRELLIS_DPR16X4"), 0, "{flops:?}");
        assert_eq!(lut.count("TRELLIS_DPR16X4"), 32 / 4, "{lut:?}");
        assert!(
            lut.flip_flops() + 4 * 32 <= flops.flip_flops(),
            "no data flip-flops: {lut:?} against {flops:?}"
        );
    }

    #[test]
    fn verilog_passes_the_tools_and_cosimulates() {
        let sets: Vec<BlockParams> = [(1, 8, false), (4, 16, true), (5, 64, false)]
            .iter()
            .map(|&(d, w, on_off)| BlockParams {
                depth: d,
                flit_width: w,
                on_off,
                ..BlockParams::default()
            })
            .collect();
        // The mutant forgets to refuse a flit when the buffer is full.
        all_checks(
            BlockKind::FlowControlUnit,
            &sets,
            3000,
            ("overflow = in_valid & ~push", "overflow = 1'b0"),
        );
    }

    #[test]
    fn block_ram_verilog_passes_the_tools_and_cosimulates() {
        // The mutant shows the RAM's read also when the flit it wrote in
        // the same edge is the front: the old entry (read first).
        ram_verilog_cosimulates(
            BufferStorage::Bram,
            ("byp_sel_0_d = push & (raddr == wp);", "byp_sel_0_d = 1'b0;"),
        );
    }

    #[test]
    fn distributed_ram_verilog_passes_the_tools_and_cosimulates() {
        // The mutant reads the RAM at the read pointer's next value: the
        // flit after the oldest shows while the oldest leaves.
        ram_verilog_cosimulates(
            BufferStorage::Lutram,
            ("lut_0_read_address = rp;", "lut_0_read_address = raddr;"),
        );
    }

    fn ram_verilog_cosimulates(storage: BufferStorage, mutation: (&str, &str)) {
        let sets: Vec<BlockParams> = [(4, 32, false), (1, 16, false), (3, 64, true)]
            .iter()
            .map(|&(d, w, on_off)| BlockParams {
                depth: d,
                flit_width: w,
                on_off,
                buffers: storage,
                ..BlockParams::default()
            })
            .collect();
        all_checks(BlockKind::FlowControlUnit, &sets, 3000, mutation);
    }
}
