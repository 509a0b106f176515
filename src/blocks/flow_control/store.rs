//! Where a flow-control unit keeps its flits' data: one block per kind of
//! storage, each written into at the slot the queue ([`super::queue`])
//! names and each showing the oldest flit as the flip-flops do, cycle by
//! cycle, stale data of an empty buffer included.
//!
//! - [`FlopStore`]: D flip-flop slots read through a D:1 multiplexer per
//!   bit; it also shows the routing fields of the two flits after the
//!   oldest, from the same slots.
//! - [`BramStore`]: a block RAM whose registered read is addressed by the
//!   oldest flit's slot after the edge, so that from each edge on it shows
//!   the new oldest flit. The one flit it cannot show is the one written in
//!   the same edge (a flit landing in an empty buffer, or in one whose only
//!   flit leaves): a register loaded with every arriving flit, and a flag
//!   set when the written slot is the one read, show it instead.
//! - distributed RAM: the RAM of [`super::ram`] with an asynchronous read,
//!   addressed by the oldest flit's slot as the flip-flops' multiplexer is,
//!   so without a bypass; the unit uses it as it is.
//! - [`RoutingFields`]: beside either RAM, the low bits of every flit (its
//!   routing fields) also in flip-flops, so that the address decoders
//!   downstream start from a flip-flop, not from the RAM's slower output.

use rust_hdl::prelude::*;

use super::queue::{slots, Count};
use super::ram::BufferRam;

/// The flits' data in D flip-flop slots (module documentation).
#[derive(LogicBlock)]
pub struct FlopStore<const W: usize> {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// `data` is written into `write_slot` at the clock edge.
    pub write: Signal<In, Bit>,
    /// The slot written.
    pub write_slot: Signal<In, Count>,
    /// The arriving flit's data.
    pub data: Signal<In, Bits<W>>,
    /// The oldest flit's slot.
    pub front_slot: Signal<In, Count>,
    /// The slot of the flit after the oldest one.
    pub after_slot: Signal<In, Count>,
    /// The slot of the flit two places after the oldest one.
    pub third_slot: Signal<In, Count>,
    /// The oldest flit's data.
    pub front: Signal<Out, Bits<W>>,
    /// The routing fields of the flit after the oldest one (the other bits
    /// zero).
    pub after: Signal<Out, Bits<W>>,
    /// The routing fields of the flit two places after the oldest one.
    pub third: Signal<Out, Bits<W>>,
    slot_data: Vec<DFF<Bits<W>>>,
    slot: Vec<Constant<Count>>,
    /// The routing fields' bits.
    fields: Constant<Bits<W>>,
    nothing: Constant<Bits<W>>,
    _d: usize,
}

impl<const W: usize> FlopStore<W> {
    /// `d` slots (1 to 16) whose low bits `fields` are the routing fields.
    pub(super) fn new(d: usize, fields: Bits<W>) -> Self {
        FlopStore {
            clock: Signal::default(),
            write: Signal::default(),
            write_slot: Signal::default(),
            data: Signal::default(),
            front_slot: Signal::default(),
            after_slot: Signal::default(),
            third_slot: Signal::default(),
            front: Signal::default(),
            after: Signal::default(),
            third: Signal::default(),
            slot_data: (0..d).map(|_| DFF::default()).collect(),
            slot: slots(d),
            fields: Constant::new(fields),
            nothing: Constant::new(Bits::<W>::default()),
            _d: d,
        }
    }
}

impl<const W: usize> Logic for FlopStore<W> {
    #[hdl_gen]
    fn update(&mut self) {
        for k in 0..self._d {
            self.slot_data[k].clock.next = self.clock.val();
            self.slot_data[k].d.next = self.slot_data[k].q.val();
        }
        if self.write.val() {
            for k in 0..self._d {
                if self.write_slot.val() == self.slot[k].val() {
                    self.slot_data[k].d.next = self.data.val();
                }
            }
        }
        self.front.next = self.slot_data[0].q.val();
        self.after.next = self.nothing.val();
        self.third.next = self.nothing.val();
        for k in 0..self._d {
            if self.front_slot.val() == self.slot[k].val() {
                self.front.next = self.slot_data[k].q.val();
            }
            if self.after_slot.val() == self.slot[k].val() {
                self.after.next = self.slot_data[k].q.val() & self.fields.val();
            }
            if self.third_slot.val() == self.slot[k].val() {
                self.third.next = self.slot_data[k].q.val() & self.fields.val();
            }
        }
    }
}

/// The flits' data in a block RAM with a bypass register (module
/// documentation).
#[derive(LogicBlock)]
pub struct BramStore<const W: usize> {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// `data` is written into `write_slot` at the clock edge.
    pub write: Signal<In, Bit>,
    /// The slot written.
    pub write_slot: Signal<In, Count>,
    /// The arriving flit's data.
    pub data: Signal<In, Bits<W>>,
    /// The oldest flit's slot after the clock edge: the RAM reads it.
    pub next_front_slot: Signal<In, Count>,
    /// The oldest flit's data.
    pub front: Signal<Out, Bits<W>>,
    ram: BufferRam<W>,
    /// The flit of the cycle before (loaded every cycle) and whether it
    /// is the oldest flit: the RAM's read of this cycle's front was the
    /// slot written in the same edge, which a block RAM does not return.
    bypass: DFF<Bits<W>>,
    bypassed: DFF<Bit>,
}

impl<const W: usize> BramStore<W> {
    /// A store of `d` slots (1 to 16).
    pub(super) fn new(d: usize) -> Self {
        BramStore {
            clock: Signal::default(),
            write: Signal::default(),
            write_slot: Signal::default(),
            data: Signal::default(),
            next_front_slot: Signal::default(),
            front: Signal::default(),
            ram: BufferRam::new_unchecked(d),
            bypass: DFF::default(),
            bypassed: DFF::default(),
        }
    }
}

impl<const W: usize> Logic for BramStore<W> {
    #[hdl_gen]
    fn update(&mut self) {
        clock!(self, clock, ram, bypass, bypassed);
        self.ram.write_enable.next = self.write.val();
        self.ram.write_address.next = self.write_slot.val();
        self.ram.write_data.next = self.data.val();
        self.ram.read_address.next = self.next_front_slot.val();
        self.bypass.d.next = self.data.val();
        // The RAM's read of this edge is the slot it writes: the flit
        // lands at the front, and next cycle shows it from the bypass.
        self.bypassed.d.next =
            self.write.val() & (self.next_front_slot.val() == self.write_slot.val());
        if self.bypassed.q.val() {
            self.front.next = self.bypass.q.val();
        } else {
            self.front.next = self.ram.read_data.val();
        }
    }
}

/// The routing fields of every flit in flip-flops beside a RAM (module
/// documentation): the oldest flit's in a register of their own, set from
/// the next state, over the low bits of the RAM's word.
#[derive(LogicBlock)]
pub struct RoutingFields<const W: usize> {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// `data`'s fields are written into `write_slot` at the clock edge.
    pub write: Signal<In, Bit>,
    /// The slot written.
    pub write_slot: Signal<In, Count>,
    /// The arriving flit's data.
    pub data: Signal<In, Bits<W>>,
    /// The oldest flit's slot after the clock edge.
    pub next_front_slot: Signal<In, Count>,
    /// The slot of the flit after the oldest one.
    pub after_slot: Signal<In, Count>,
    /// The slot of the flit two places after the oldest one.
    pub third_slot: Signal<In, Count>,
    /// The oldest flit's data as the RAM shows it.
    pub word: Signal<In, Bits<W>>,
    /// `word` with its routing fields from the flip-flops.
    pub front: Signal<Out, Bits<W>>,
    /// The routing fields of the flit after the oldest one (the other bits
    /// zero).
    pub after: Signal<Out, Bits<W>>,
    /// The routing fields of the flit two places after the oldest one.
    pub third: Signal<Out, Bits<W>>,
    slot_fields: Vec<DFF<Bits<W>>>,
    front_fields: DFF<Bits<W>>,
    slot: Vec<Constant<Count>>,
    /// The routing fields' bits, and the others.
    fields: Constant<Bits<W>>,
    rest: Constant<Bits<W>>,
    nothing: Constant<Bits<W>>,
    _d: usize,
}

impl<const W: usize> RoutingFields<W> {
    /// The fields `fields` (the low bits, at least one) of `d` slots (1 to
    /// 16).
    pub(super) fn new(d: usize, fields: Bits<W>) -> Self {
        RoutingFields {
            clock: Signal::default(),
            write: Signal::default(),
            write_slot: Signal::default(),
            data: Signal::default(),
            next_front_slot: Signal::default(),
            after_slot: Signal::default(),
            third_slot: Signal::default(),
            word: Signal::default(),
            front: Signal::default(),
            after: Signal::default(),
            third: Signal::default(),
            slot_fields: (0..d).map(|_| DFF::default()).collect(),
            front_fields: DFF::default(),
            slot: slots(d),
            fields: Constant::new(fields),
            rest: Constant::new(!fields),
            nothing: Constant::new(Bits::<W>::default()),
            _d: d,
        }
    }
}

impl<const W: usize> Logic for RoutingFields<W> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, front_fields);
        self.after.next = self.nothing.val();
        self.third.next = self.nothing.val();
        for k in 0..self._d {
            self.slot_fields[k].clock.next = self.clock.val();
            self.slot_fields[k].d.next = self.slot_fields[k].q.val();
        }
        for k in 0..self._d {
            if self.write.val() & (self.write_slot.val() == self.slot[k].val()) {
                self.slot_fields[k].d.next = self.data.val() & self.fields.val();
            }
            // What the RAM shows next, in flip-flops: the slot it reads
            // after the edge ...
            if self.next_front_slot.val() == self.slot[k].val() {
                self.front_fields.d.next = self.slot_fields[k].q.val();
            }
            if self.after_slot.val() == self.slot[k].val() {
                self.after.next = self.slot_fields[k].q.val();
            }
            if self.third_slot.val() == self.slot[k].val() {
                self.third.next = self.slot_fields[k].q.val();
            }
        }
        // ... or the flit written into it in this edge.
        if self.write.val() & (self.next_front_slot.val() == self.write_slot.val()) {
            self.front_fields.d.next = self.data.val() & self.fields.val();
        }
        self.front.next = (self.word.val() & self.rest.val()) | self.front_fields.q.val();
    }
}
