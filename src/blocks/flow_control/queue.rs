//! The order of the flits in a flow-control unit's buffer, whatever holds
//! their data: the read and write slots, the occupancy, each slot's head and
//! tail marks, and the receive side of the link (a credit per flit that
//! leaves, or the on/off level).
//!
//! The data store ([`super::store`], or the RAM of [`super::ram`]) writes
//! the arriving flit at `write_slot` when `push` is high and shows the slot
//! the queue names: `front_slot` (the oldest flit), `next_front_slot` (the
//! oldest flit after this edge: a registered read addressed by it shows the
//! new oldest flit from each edge on), `after_slot` and `third_slot` (the
//! flits one and two places after the oldest).
//!
//! The marks of the two oldest flits and whether the buffer holds one sit
//! in flip-flops of their own, set from the next state, so that the
//! router's allocators start from a flip-flop: `out_valid` starts switch
//! allocation, `out_head` VC allocation, `after_head` the offer of a head
//! behind a leaving tail.

use rust_hdl::prelude::*;

use crate::limits::MAX_BUFFER_DEPTH;

/// Width of the occupancy, pointer and credit counters: they count 0 to
/// [`MAX_BUFFER_DEPTH`] flits.
pub const COUNT_BITS: usize = 5;
const _: () = assert!(MAX_BUFFER_DEPTH < 1 << COUNT_BITS);

/// A slot number, an occupancy or a credit count.
pub type Count = Bits<COUNT_BITS>;

/// All ones over the bits that hold the values 0 to `max`.
pub fn mask_for(max: usize) -> usize {
    (max + 1).next_power_of_two() - 1
}

/// The constant `v` as a [`Count`].
pub(super) fn value(v: usize) -> Constant<Count> {
    Constant::new(Count::from(v as u64))
}

/// The slot numbers 0 to `d - 1`, to compare a slot signal with.
pub(super) fn slots(d: usize) -> Vec<Constant<Count>> {
    (0..d).map(value).collect()
}

/// A D-slot queue's pointers, occupancy and marks, and the credit or level
/// it returns upstream (module documentation).
#[derive(LogicBlock)]
pub struct FlitQueue {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset, active high: the queue empties.
    pub rst: Signal<In, Bit>,
    /// A flit arrives this cycle.
    pub in_valid: Signal<In, Bit>,
    /// The arriving flit is a head flit.
    pub in_head: Signal<In, Bit>,
    /// The arriving flit is a tail flit.
    pub in_tail: Signal<In, Bit>,
    /// The oldest flit leaves this cycle (when `out_valid`).
    pub out_ready: Signal<In, Bit>,
    /// The queue holds a flit.
    pub out_valid: Signal<Out, Bit>,
    /// The oldest flit is a head flit (low when empty).
    pub out_head: Signal<Out, Bit>,
    /// The oldest flit is a tail flit (low when empty).
    pub out_tail: Signal<Out, Bit>,
    /// The flit after the oldest one is there and is a head flit.
    pub after_head: Signal<Out, Bit>,
    /// A flit arrived while the queue was full and was refused.
    pub overflow: Signal<Out, Bit>,
    /// Credit mode: a pulse per flit that leaves; on/off: high while at
    /// least `slack` slots are free.
    pub credit_out: Signal<Out, Bit>,
    /// Next cycle's oldest flit is the flit after the oldest.
    pub front_takes_after: Signal<Out, Bit>,
    /// Next cycle's oldest flit is the arriving one.
    pub front_takes_in: Signal<Out, Bit>,
    /// Next cycle's flit after the oldest is the one two places on.
    pub after_takes_third: Signal<Out, Bit>,
    /// Next cycle's flit after the oldest is the arriving one.
    pub after_takes_in: Signal<Out, Bit>,
    /// The arriving flit is written at the clock edge.
    pub push: Signal<Out, Bit>,
    /// The slot it is written into.
    pub write_slot: Signal<Out, Count>,
    /// The oldest flit's slot.
    pub front_slot: Signal<Out, Count>,
    /// The oldest flit's slot after the clock edge.
    pub next_front_slot: Signal<Out, Count>,
    /// The slot of the flit after the oldest one.
    pub after_slot: Signal<Out, Count>,
    /// The slot of the flit two places after the oldest one.
    pub third_slot: Signal<Out, Count>,
    slot_head: Vec<DFF<Bit>>,
    slot_tail: Vec<DFF<Bit>>,
    front_head: DFF<Bit>,
    front_tail: DFF<Bit>,
    front_valid: DFF<Bit>,
    /// `after_head` in a flip-flop of its own.
    second_head: DFF<Bit>,
    /// The marks of the flit after the oldest one, and the head mark of
    /// the one after that (the next `after_head` when the oldest leaves).
    head_after: Signal<Local, Bit>,
    tail_after: Signal<Local, Bit>,
    head_after2: Signal<Local, Bit>,
    rp: DFF<Count>,
    wp: DFF<Count>,
    count: DFF<Count>,
    pop: Signal<Local, Bit>,
    slot: Vec<Constant<Count>>,
    last: Constant<Count>,
    depth: Constant<Count>,
    one: Constant<Count>,
    two: Constant<Count>,
    zero: Constant<Count>,
    /// The bits the pointers (`ptr_mask`) and the occupancy (`count_mask`)
    /// need: masking their next values keeps the unused high bits
    /// constant, so synthesis drops them and the read multiplexers select
    /// on ceil(log2 D) bits only.
    ptr_mask: Constant<Count>,
    count_mask: Constant<Count>,
    onoff: Constant<Bit>,
    /// On/off: the occupancies at which fewer than `slack` slots are free
    /// (D, D - 1, ..., D - slack + 1).
    full: Vec<Constant<Count>>,
    _d: usize,
    _slack: usize,
}

impl FlitQueue {
    /// A queue of `d` slots (1 to [`MAX_BUFFER_DEPTH`]); with `on_off` its
    /// `credit_out` is high while at least `slack` (1 to `d`) are free.
    pub(super) fn new(d: usize, on_off: bool, slack: usize) -> Self {
        FlitQueue {
            clock: Signal::default(),
            rst: Signal::default(),
            in_valid: Signal::default(),
            in_head: Signal::default(),
            in_tail: Signal::default(),
            out_ready: Signal::default(),
            out_valid: Signal::default(),
            out_head: Signal::default(),
            out_tail: Signal::default(),
            after_head: Signal::default(),
            overflow: Signal::default(),
            credit_out: Signal::default(),
            front_takes_after: Signal::default(),
            front_takes_in: Signal::default(),
            after_takes_third: Signal::default(),
            after_takes_in: Signal::default(),
            push: Signal::default(),
            write_slot: Signal::default(),
            front_slot: Signal::default(),
            next_front_slot: Signal::default(),
            after_slot: Signal::default(),
            third_slot: Signal::default(),
            slot_head: (0..d).map(|_| DFF::default()).collect(),
            slot_tail: (0..d).map(|_| DFF::default()).collect(),
            front_head: DFF::default(),
            front_tail: DFF::default(),
            front_valid: DFF::default(),
            second_head: DFF::default(),
            head_after: Signal::default(),
            tail_after: Signal::default(),
            head_after2: Signal::default(),
            rp: DFF::default(),
            wp: DFF::default(),
            count: DFF::default(),
            pop: Signal::default(),
            slot: slots(d),
            last: value(d - 1),
            depth: value(d),
            one: value(1),
            two: value(2),
            zero: value(0),
            ptr_mask: value(mask_for(d - 1)),
            count_mask: value(mask_for(d)),
            onoff: Constant::new(on_off),
            full: (0..slack).map(|j| value(d - j)).collect(),
            _d: d,
            _slack: slack,
        }
    }
}

impl Logic for FlitQueue {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            front_head,
            front_tail,
            front_valid,
            second_head,
            wp,
            count
        );
        clock!(self, clock, rp);
        for k in 0..self._d {
            self.slot_head[k].clock.next = self.clock.val();
            self.slot_tail[k].clock.next = self.clock.val();
            self.slot_head[k].d.next = self.slot_head[k].q.val();
            self.slot_tail[k].d.next = self.slot_tail[k].q.val();
        }
        self.out_valid.next = self.front_valid.q.val();
        self.out_head.next = self.front_head.q.val();
        self.out_tail.next = self.front_tail.q.val();
        self.after_head.next = self.second_head.q.val();
        self.front_slot.next = self.rp.q.val();
        self.write_slot.next = self.wp.q.val();
        if self.rp.q.val() == self.last.val() {
            self.after_slot.next = self.zero.val();
        } else {
            self.after_slot.next = (self.rp.q.val() + self.one.val()) & self.ptr_mask.val();
        }
        if self.after_slot.val() == self.last.val() {
            self.third_slot.next = self.zero.val();
        } else {
            self.third_slot.next = (self.after_slot.val() + self.one.val()) & self.ptr_mask.val();
        }
        self.head_after.next = false;
        self.tail_after.next = false;
        self.head_after2.next = false;
        for k in 0..self._d {
            if self.after_slot.val() == self.slot[k].val() {
                self.head_after.next = self.slot_head[k].q.val();
                self.tail_after.next = self.slot_tail[k].q.val();
            }
            if self.third_slot.val() == self.slot[k].val() {
                self.head_after2.next = self.slot_head[k].q.val();
            }
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
        // Full: refuse the flit, never overwrite (independent of the pop:
        // the write does not wait for `out_ready`, which comes late in the
        // cycle).
        self.push.next = self.in_valid.val() & (self.count.q.val() != self.depth.val());
        self.overflow.next = self.in_valid.val() & !self.push.val();
        // Not empty next: a flit arrives, or one stays after the pop.
        if self.pop.val() {
            self.front_valid.d.next = self.push.val() | (self.count.q.val() != self.one.val());
        } else {
            self.front_valid.d.next = self.push.val() | (self.count.q.val() != self.zero.val());
        }
        // The next oldest flit's marks: the arriving flit's when it lands
        // in an empty queue (or one whose only flit leaves), else the
        // slot's after the oldest (a pop) or the same ones.
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
        self.next_front_slot.next = self.rp.q.val();
        if self.pop.val() {
            self.next_front_slot.next = self.after_slot.val();
        }
        if self.rst.val() {
            self.next_front_slot.next = self.zero.val();
        }
        self.rp.d.next = self.next_front_slot.val();
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
        if self.rst.val() {
            self.front_head.d.next = false;
            self.front_tail.d.next = false;
            self.front_valid.d.next = false;
            self.second_head.d.next = false;
            self.wp.d.next = self.zero.val();
            self.count.d.next = self.zero.val();
        }
    }
}
