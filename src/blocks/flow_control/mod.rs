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
//! flit; a flit is sent when `send_req` and `send_ok` are high
//! ([`LinkSender`]: a credit counter, or the downstream "on" level).
//!
//! Synchronous reset `rst` empties the buffer and restores D credits.
//!
//! Structure: a [`FlitQueue`] keeps the flits' order (pointers, occupancy,
//! head and tail marks) and returns the credit or level upstream, a
//! [`LinkSender`] is the send side, and a store keeps the flits' data; the
//! unit's update only wires them.
//!
//! Storage ([`FlowControlUnit::stored_in`]): the data sit in D flip-flop
//! slots ([`FlopStore`]), in a block RAM with a bypass register
//! ([`BramStore`]) or, on the ECP5, in distributed RAM ([`BufferRam`] read
//! asynchronously). The head and tail marks stay in the queue's
//! flip-flops, and [`FlowControlUnit::fields_in_flops`] keeps the low bits
//! of each flit (the routing fields) in flip-flops beside a RAM too
//! ([`RoutingFields`]), so that the address decoders downstream start from
//! a flip-flop, not from the RAM's slower output. Every output equals the
//! flip-flop unit's in every cycle, stale data of an empty buffer included.
//! rust-hdl fixes a block's children when it is built, so the unit holds
//! each kind of store in a Vec of none or one, and its update wires the
//! one it has: an empty Vec's loop is written as nothing.
//!
//! An absent unit ([`FlowControlUnit::absent`]) buffers an input VC on
//! which no flit may arrive: it has no store, shows nothing and refuses
//! every flit, so synthesis removes its queue and sender. A present unit's
//! Verilog has no trace of the option.

use rust_hdl::prelude::*;

mod queue;
pub mod ram;
mod sender;
mod store;

pub use queue::{mask_for, FlitQueue, COUNT_BITS};
use ram::BufferRam;
pub use sender::LinkSender;
pub use store::{BramStore, FlopStore, RoutingFields};

use super::cosim::InputSignal;
use super::HwBlock;
use crate::limits::MAX_BUFFER_DEPTH;
use crate::spec::BufferStorage;

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
    /// The flits' order and marks, and the receive side of the link.
    queue: FlitQueue,
    /// The send side of the link.
    sender: LinkSender,
    /// The store of the unit's kind, one block in one of these (none in an
    /// absent unit): flip-flops, block RAM, distributed RAM, and beside
    /// either RAM the routing fields in flip-flops.
    flops: Vec<FlopStore<W>>,
    bram: Vec<BramStore<W>>,
    lutram: Vec<BufferRam<W>>,
    fields: Vec<RoutingFields<W>>,
    nothing: Constant<Bits<W>>,
    /// 1 for an absent unit ([`FlowControlUnit::absent`]), whose update
    /// ties its outputs; 0 for a present one (the loop is written as
    /// nothing).
    _absent: usize,
    _d: usize,
    _on_off: bool,
    _slack: usize,
    _storage: BufferStorage,
    _low_bits: usize,
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
        Self::build(depth, on_off, 1, BufferStorage::Flops, 0, false)
    }

    /// [`FlowControlUnit::on_off`] for callers whose sizes are validated
    /// (out of range sizes are clamped).
    pub(crate) fn on_off_unchecked(depth: usize, slack: usize) -> Self {
        Self::build(depth, true, slack, BufferStorage::Flops, 0, false)
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
            self._on_off,
            self._slack,
            storage,
            self._low_bits,
            !self.is_present(),
        )
    }

    /// The low `bits` bits of every flit are its routing fields (at most
    /// W, more are taken as W): `after_data` shows them. With block or
    /// distributed RAM they are also kept in flip-flops, so `out_data`'s
    /// low bits come from a flip-flop; the behaviour is the same.
    pub fn fields_in_flops(self, bits: usize) -> Self {
        Self::build(
            self._d,
            self._on_off,
            self._slack,
            self._storage,
            bits,
            !self.is_present(),
        )
    }

    /// This unit as the buffer of an input VC no flit may arrive on (the
    /// routing relation never sends on that VC over the link): every
    /// output held low, `out_data` zero, and a flit offered is refused with
    /// `overflow`. Nothing it holds can then be seen, so synthesis keeps
    /// none of its flip-flops.
    pub fn absent(self) -> Self {
        Self::build(
            self._d,
            self._on_off,
            self._slack,
            self._storage,
            self._low_bits,
            true,
        )
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
        absent: bool,
    ) -> Self {
        let d = depth.clamp(1, MAX_BUFFER_DEPTH as usize);
        let slack = slack.clamp(1, d);
        let low_bits = low_bits.min(W);
        let fields = Bits::<W>::from(if low_bits >= 64 {
            u64::MAX
        } else {
            (1u64 << low_bits) - 1
        });
        let present = usize::from(!absent);
        let is = |s: BufferStorage| usize::from(storage == s) * present;
        let ram = is(BufferStorage::Bram) + is(BufferStorage::Lutram);
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
            queue: FlitQueue::new(d, on_off, slack),
            sender: LinkSender::new(d, on_off),
            flops: (0..is(BufferStorage::Flops))
                .map(|_| FlopStore::new(d, fields))
                .collect(),
            bram: (0..is(BufferStorage::Bram))
                .map(|_| BramStore::new(d))
                .collect(),
            lutram: (0..is(BufferStorage::Lutram))
                .map(|_| BufferRam::new_unchecked(d).distributed())
                .collect(),
            fields: (0..ram * usize::from(low_bits > 0))
                .map(|_| RoutingFields::new(d, fields))
                .collect(),
            nothing: Constant::new(Bits::<W>::default()),
            _absent: usize::from(absent),
            _d: d,
            _on_off: on_off,
            _slack: slack,
            _storage: storage,
            _low_bits: low_bits,
        }
    }
}

impl<const W: usize> Logic for FlowControlUnit<W> {
    #[hdl_gen]
    fn update(&mut self) {
        clock!(self, clock, queue, sender);
        self.queue.rst.next = self.rst.val();
        self.queue.in_valid.next = self.in_valid.val();
        self.queue.in_head.next = self.in_head.val();
        self.queue.in_tail.next = self.in_tail.val();
        self.queue.out_ready.next = self.out_ready.val();
        self.out_valid.next = self.queue.out_valid.val();
        self.out_head.next = self.queue.out_head.val();
        self.out_tail.next = self.queue.out_tail.val();
        self.after_head.next = self.queue.after_head.val();
        self.overflow.next = self.queue.overflow.val();
        self.credit_out.next = self.queue.credit_out.val();
        self.front_takes_after.next = self.queue.front_takes_after.val();
        self.front_takes_in.next = self.queue.front_takes_in.val();
        self.after_takes_third.next = self.queue.after_takes_third.val();
        self.after_takes_in.next = self.queue.after_takes_in.val();
        self.sender.rst.next = self.rst.val();
        self.sender.credit_in.next = self.credit_in.val();
        self.sender.send_req.next = self.send_req.val();
        self.send_ok.next = self.sender.send_ok.val();
        // The flits' data, from the store the unit has. A RAM shows no
        // routing fields unless they are kept in flip-flops beside it.
        self.after_data.next = self.nothing.val();
        self.third_data.next = self.nothing.val();
        for k in 0..self.flops.len() {
            self.flops[k].clock.next = self.clock.val();
            self.flops[k].write.next = self.queue.push.val();
            self.flops[k].write_slot.next = self.queue.write_slot.val();
            self.flops[k].data.next = self.in_data.val();
            self.flops[k].front_slot.next = self.queue.front_slot.val();
            self.flops[k].after_slot.next = self.queue.after_slot.val();
            self.flops[k].third_slot.next = self.queue.third_slot.val();
            self.out_data.next = self.flops[k].front.val();
            self.after_data.next = self.flops[k].after.val();
            self.third_data.next = self.flops[k].third.val();
        }
        for k in 0..self.bram.len() {
            self.bram[k].clock.next = self.clock.val();
            self.bram[k].write.next = self.queue.push.val();
            self.bram[k].write_slot.next = self.queue.write_slot.val();
            self.bram[k].data.next = self.in_data.val();
            self.bram[k].next_front_slot.next = self.queue.next_front_slot.val();
            self.out_data.next = self.bram[k].front.val();
            for j in 0..self.fields.len() {
                self.fields[j].word.next = self.bram[k].front.val();
            }
        }
        for k in 0..self.lutram.len() {
            self.lutram[k].clock.next = self.clock.val();
            self.lutram[k].write_enable.next = self.queue.push.val();
            self.lutram[k].write_address.next = self.queue.write_slot.val();
            self.lutram[k].write_data.next = self.in_data.val();
            self.lutram[k].read_address.next = self.queue.front_slot.val();
            self.out_data.next = self.lutram[k].read_data.val();
            for j in 0..self.fields.len() {
                self.fields[j].word.next = self.lutram[k].read_data.val();
            }
        }
        for k in 0..self.fields.len() {
            self.fields[k].clock.next = self.clock.val();
            self.fields[k].write.next = self.queue.push.val();
            self.fields[k].write_slot.next = self.queue.write_slot.val();
            self.fields[k].data.next = self.in_data.val();
            self.fields[k].next_front_slot.next = self.queue.next_front_slot.val();
            self.fields[k].after_slot.next = self.queue.after_slot.val();
            self.fields[k].third_slot.next = self.queue.third_slot.val();
            self.out_data.next = self.fields[k].front.val();
            self.after_data.next = self.fields[k].after.val();
            self.third_data.next = self.fields[k].third.val();
        }
        // An absent unit shows nothing and refuses every flit.
        for _k in 0..self._absent {
            self.out_data.next = self.nothing.val();
            self.out_valid.next = false;
            self.out_head.next = false;
            self.out_tail.next = false;
            self.after_head.next = false;
            self.overflow.next = self.in_valid.val();
            self.credit_out.next = false;
            self.send_ok.next = false;
            self.front_takes_after.next = false;
            self.front_takes_in.next = false;
            self.after_takes_third.next = false;
            self.after_takes_in.next = false;
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
mod tests;
