//! The send side of a flow-controlled link: whether the downstream buffer
//! (D flits deep, as this unit's) can take a flit.
//!
//! - credit mode: a counter starts at D after reset, drops by one per flit
//!   sent and rises by one per `credit_in` pulse (never above D);
//! - on/off mode: `send_ok` is `credit_in`, the downstream "on" level.

use rust_hdl::prelude::*;

use super::queue::{value, Count};

/// The sender's credit counter, or the downstream level (module
/// documentation).
#[derive(LogicBlock)]
pub struct LinkSender {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset, active high: D credits again.
    pub rst: Signal<In, Bit>,
    /// Credit mode: a credit from downstream; on/off: the downstream level.
    pub credit_in: Signal<In, Bit>,
    /// A flit is sent this cycle if `send_ok`.
    pub send_req: Signal<In, Bit>,
    /// The downstream buffer can take a flit.
    pub send_ok: Signal<Out, Bit>,
    credits: DFF<Count>,
    send: Signal<Local, Bit>,
    inc: Signal<Local, Bit>,
    dec: Signal<Local, Bit>,
    depth: Constant<Count>,
    one: Constant<Count>,
    zero: Constant<Count>,
    onoff: Constant<Bit>,
}

impl LinkSender {
    /// The send side of a link to a `d`-flit buffer, by credits or, with
    /// `on_off`, by the downstream level.
    pub(super) fn new(d: usize, on_off: bool) -> Self {
        LinkSender {
            clock: Signal::default(),
            rst: Signal::default(),
            credit_in: Signal::default(),
            send_req: Signal::default(),
            send_ok: Signal::default(),
            credits: DFF::default(),
            send: Signal::default(),
            inc: Signal::default(),
            dec: Signal::default(),
            depth: value(d),
            one: value(1),
            zero: value(0),
            onoff: Constant::new(on_off),
        }
    }
}

impl Logic for LinkSender {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, credits);
        if self.onoff.val() {
            self.send_ok.next = self.credit_in.val();
        } else {
            self.send_ok.next = self.credits.q.val() != self.zero.val();
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
            self.credits.d.next = self.depth.val();
        }
    }
}
