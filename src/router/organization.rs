//! How a router is organized behind its ports: one unified router (one
//! P x P crossbar), or one of Chien's organizations built from unified
//! routers (§5.1 dimension slices, §5.2 plane slices, §5.4 a crossbar port
//! per VC).
//!
//! Each organization is a rust-hdl block whose sub-blocks sit directly in
//! the router's module, as fields of the router itself would: its `accept`
//! opens no scope of its own, so the emitted Verilog names a buffer
//! `fcu$0`, a slice `slices$0` (not `org$fcu$0`).

use std::fmt::Write as _;

use rust_hdl::prelude::*;

use super::block::Io;
use super::planes::PlaneSlices;
use super::sliced::DimensionSlices;
use super::unified::{SwitchAllocator, Unified, VcAllocator};
use super::vcports::VcPorts;
use super::{Router, CLASS_BITS, PORT_BITS, VC_BITS};
use crate::blocks::Crossbar;
use crate::spec::PathSelection;

/// `Block` for a type whose fields `$f` (blocks) belong to the enclosing
/// module: connect, update and visit them in this order, with no scope of
/// their own (the organizations of slices, whose glue the router's `update`
/// runs with the router's ports); or, `scoped`, to a module of the type's
/// own (the unified router, whose `update` is its glue). The type's
/// `Logic::connect` marks what its glue drives.
macro_rules! transparent_block {
    // A block of its own (a module), its fields in this order.
    (scoped $ty:ident $(<$w:ident>)?; $($f:ident),* $(,)?) => {
        transparent_block!(@impl true, $ty $(<$w>)?; $($f),*);
    };
    ($ty:ident $(<$w:ident>)?; $($f:ident),* $(,)?) => {
        transparent_block!(@impl false, $ty $(<$w>)?; $($f),*);
    };
    (@impl $scoped:expr, $ty:ident $(<$w:ident>)?; $($f:ident),*) => {
        impl$(<const $w: usize>)? rust_hdl::core::block::Block for $ty$(<$w>)? {
            fn connect_all(&mut self) {
                rust_hdl::core::logic::Logic::connect(self);
                $(self.$f.connect_all();)*
            }
            fn update_all(&mut self) {
                rust_hdl::core::logic::Logic::update(self);
                $(self.$f.update_all();)*
            }
            fn has_changed(&self) -> bool {
                false $(|| self.$f.has_changed())*
            }
            fn accept(&self, name: &str, probe: &mut dyn rust_hdl::core::probe::Probe) {
                if $scoped {
                    probe.visit_start_scope(name, self);
                }
                $(self.$f.accept(stringify!($f), probe);)*
                if $scoped {
                    probe.visit_end_scope(name, self);
                }
            }
        }
    };
}
pub(super) use transparent_block;

/// The instance name of a unified router inside the router block (the
/// core of a slice; a unified router's own core module is the unified
/// router itself).
pub(super) const UNIFIED: &str = "unified";

/// The organization of a router behind its ports.
pub enum Organization<const W: usize> {
    /// One router: input buffers, decoders, allocators, one P x P crossbar
    /// ([`crate::router::unified`]).
    Unified(Box<Unified<W>>),
    /// Dimension order as n routers of 1-D networks (Chien §5.1,
    /// [`crate::router::sliced`]).
    DimensionSlices(DimensionSlices<W>),
    /// Planar-adaptive as n-1 routers of 2-D networks (Chien §5.2,
    /// [`crate::router::planes`]).
    PlaneSlices(PlaneSlices<W>),
    /// One router of P V ports of one VC each and a VC controller per
    /// link (Chien §5.4, [`crate::router::vcports`]).
    VcPorts(VcPorts<W>),
}

impl<const W: usize> Organization<W> {
    /// The glue of one evaluation: read the router's inputs, drive its
    /// outputs and the sub-blocks' inputs (the simulation model).
    pub(super) fn glue(&mut self, io: &mut Io<'_, W>) {
        match self {
            Organization::Unified(u) => u.wire_ports(io),
            Organization::DimensionSlices(s) => s.glue(io),
            Organization::PlaneSlices(s) => s.glue(io),
            Organization::VcPorts(s) => s.glue(io),
        }
    }

    /// The same glue as Verilog (the co-simulation holds the two equal):
    /// the unified router's as code, its stages written once.
    pub(super) fn glue_verilog(&self) -> Verilog {
        Verilog::Custom(match self {
            Organization::Unified(u) => u.ports_verilog(),
            Organization::DimensionSlices(s) => s.glue_verilog(),
            Organization::PlaneSlices(s) => s.glue_verilog(),
            Organization::VcPorts(s) => s.glue_verilog(),
        })
    }

    /// The slices, each a unified router (none in a unified router; the
    /// VC-port router's one core).
    pub fn slices(&self) -> &[Router<W>] {
        match self {
            Organization::Unified(_) => &[],
            Organization::DimensionSlices(s) => &s.slices,
            Organization::PlaneSlices(s) => &s.slices,
            Organization::VcPorts(s) => &s.slices,
        }
    }
}

impl<const W: usize> Logic for Organization<W> {
    fn update(&mut self) {}
}

impl<const W: usize> Block for Organization<W> {
    fn connect_all(&mut self) {
        match self {
            Organization::Unified(u) => u.connect_all(),
            Organization::DimensionSlices(s) => s.connect_all(),
            Organization::PlaneSlices(s) => s.connect_all(),
            Organization::VcPorts(s) => s.connect_all(),
        }
    }
    fn update_all(&mut self) {
        match self {
            Organization::Unified(u) => u.update_all(),
            Organization::DimensionSlices(s) => s.update_all(),
            Organization::PlaneSlices(s) => s.update_all(),
            Organization::VcPorts(s) => s.update_all(),
        }
    }
    fn has_changed(&self) -> bool {
        match self {
            Organization::Unified(u) => u.has_changed(),
            Organization::DimensionSlices(s) => s.has_changed(),
            Organization::PlaneSlices(s) => s.has_changed(),
            Organization::VcPorts(s) => s.has_changed(),
        }
    }
    fn accept(&self, name: &str, probe: &mut dyn Probe) {
        match self {
            Organization::Unified(u) => u.accept(UNIFIED, probe),
            Organization::DimensionSlices(s) => s.accept(name, probe),
            Organization::PlaneSlices(s) => s.accept(name, probe),
            Organization::VcPorts(s) => s.accept(name, probe),
        }
    }
}

/// The unified router's allocators and crossbar in an organization built
/// from slices, the smallest of each, their inputs tied low (synthesis
/// removes them): the module keeps the unified router's instances.
pub struct StandIns<const W: usize> {
    valloc: VcAllocator,
    salloc: SwitchAllocator,
    xbar: Crossbar<W>,
}

impl<const W: usize> StandIns<W> {
    /// The stand-ins.
    pub(super) fn new() -> Self {
        StandIns {
            valloc: VcAllocator::new(2, 1, 1, &[true; 4], false, PathSelection::StaticXy),
            salloc: SwitchAllocator::new(2, 1),
            xbar: Crossbar::per_flit_unchecked(1),
        }
    }

    /// Their clocks (their other inputs are never driven high).
    pub(super) fn glue(&mut self, clk: Clock) {
        self.valloc.clock.next = clk;
        self.salloc.clock.next = clk;
        self.xbar.clock.next = clk;
    }

    /// The stand-ins tied low, as Verilog lines.
    fn verilog(&self) -> Vec<String> {
        let mut out = Vec::new();
        let mut line = |t: String| out.push(t);
        let a = &self.valloc;
        let s = &self.salloc;
        for (block, inputs) in [
            (
                "valloc",
                vec![
                    ("busy", a.busy.len(), 1),
                    ("credit", a.credit.len(), 8),
                    ("req", a.req.len(), 1),
                    ("perm", a.perm.len(), 1),
                    ("behind", a.behind.len(), 1),
                    ("held_port", a.held_port.len(), PORT_BITS),
                    ("held_vc", a.held_vc.len(), VC_BITS),
                    ("leaves", a.leaves.len(), 1),
                ],
            ),
            (
                "salloc",
                vec![
                    ("valid", s.valid.len(), 1),
                    ("may_send", s.may_send.len(), 1),
                    ("port", s.port.len(), PORT_BITS),
                ],
            ),
        ] {
            line(format!("    {block}$clock = clock; {block}$rst = 1'b0;"));
            for (name, count, width) in inputs {
                for i in 0..count {
                    line(format!("    {block}${name}${i} = {width}'d0;"));
                }
            }
        }
        line("    xbar$clock = clock; xbar$rst = 1'b0;".into());
        for i in 0..self.xbar.grant.len() {
            line(format!("    xbar$grant${i} = 1'b0;"));
        }
        for i in 0..self.xbar.in_data.len() {
            line(format!(
                "    xbar$in_data${i} = {W}'d0; xbar$in_valid${i} = 1'b0; \
                 xbar$in_head${i} = 1'b0; xbar$in_tail${i} = 1'b0;"
            ));
        }
        out
    }

    /// The start of a sliced router's wiring in Verilog: a comment with
    /// `title`, the always block's first line, the stand-ins tied low.
    pub(super) fn wiring_start(&self, title: &str) -> String {
        let mut s = format!("    // {title}\n    always @(*) begin\n");
        for t in self.verilog() {
            let _ = writeln!(s, "    {t}");
        }
        s
    }
}

impl<const W: usize> Logic for StandIns<W> {
    fn update(&mut self) {}
    fn connect(&mut self) {
        let a = &mut self.valloc;
        a.clock.connect();
        a.rst.connect();
        wire(&mut a.busy);
        wire(&mut a.credit);
        wire(&mut a.req);
        wire(&mut a.perm);
        wire(&mut a.behind);
        wire(&mut a.held_port);
        wire(&mut a.held_vc);
        wire(&mut a.leaves);
        let s = &mut self.salloc;
        s.clock.connect();
        s.rst.connect();
        wire(&mut s.valid);
        wire(&mut s.may_send);
        wire(&mut s.port);
        let x = &mut self.xbar;
        x.clock.connect();
        x.rst.connect();
        wire(&mut x.grant);
        wire(&mut x.in_data);
        wire(&mut x.in_valid);
        wire(&mut x.in_head);
        wire(&mut x.in_tail);
    }
}

transparent_block!(StandIns<W>; valloc, salloc, xbar);

/// Marks every signal of `signals` driven (by an organization's wiring).
pub(super) fn wire<D: Direction, T: Synth>(signals: &mut [Signal<D, T>]) {
    for s in signals {
        s.connect();
    }
}

/// Marks the inputs of the slices driven (by an organization's wiring).
pub(super) fn connect_slices<const W: usize>(slices: &mut [Router<W>]) {
    for s in slices.iter_mut() {
        s.clock.connect();
        s.rst.connect();
        s.node_id.connect();
        s.cfg_we.connect();
        s.cfg_addr.connect();
        s.cfg_class.connect();
        wire(&mut s.in_data);
        wire(&mut s.in_valid);
        wire(&mut s.in_head);
        wire(&mut s.in_tail);
        wire(&mut s.in_vc);
        wire(&mut s.out_credit);
    }
}

/// Clock, reset, node_id (its `coords` coordinates of `cb` bits from
/// coordinate i) and the unused table port of slice `s`, number i.
pub(super) fn slice_setup<const W: usize>(
    io: &Io<'_, W>,
    s: &mut Router<W>,
    i: usize,
    coords: usize,
    cb: usize,
) {
    let node = io.node_id.val().to_u64();
    s.clock.next = io.clock.val();
    s.rst.next = io.rst.val();
    s.node_id.next = Bits::<W>::from((node >> (i * cb)) & ((1u64 << (coords * cb)) - 1));
    s.cfg_we.next = false;
    s.cfg_addr.next = 0u64.into();
    s.cfg_class.next = 0u64.into();
}

/// [`slice_setup`] as Verilog lines.
pub(super) fn slice_setup_verilog(w: usize, i: usize, coords: usize, cb: usize) -> Vec<String> {
    let sd = format!("slices${i}");
    vec![
        format!("    {sd}$clock = clock; {sd}$rst = rst;"),
        format!(
            "    {sd}$node_id = {{{}'d0, node_id[{}:{}]}};",
            w - coords * cb,
            (i + coords) * cb - 1,
            i * cb
        ),
        format!(
            "    {sd}$cfg_we = 1'b0; {sd}$cfg_addr = {}'d0; {sd}$cfg_class = {}'d0;",
            crate::blocks::es_table::ADDR_BITS,
            CLASS_BITS
        ),
    ]
}

/// Router output port o driven by port j of slice `s` (its data into the
/// router's field order by `data`), the credits of o's `v` VCs back to the
/// slice.
pub(super) fn port_from_slice<const W: usize>(
    io: &mut Io<'_, W>,
    s: &mut Router<W>,
    j: usize,
    o: usize,
    v: usize,
    data: impl Fn(u64) -> u64,
) {
    io.out_data[o].next = Bits::<W>::from(data(s.out_data[j].val().to_u64()));
    io.out_valid[o].next = s.out_valid[j].val();
    io.out_head[o].next = s.out_head[j].val();
    io.out_tail[o].next = s.out_tail[j].val();
    io.out_vc[o].next = s.out_vc[j].val();
    for c in 0..v {
        s.out_credit[j * v + c].next = io.out_credit[o * v + c].val();
    }
}

/// [`port_from_slice`] as Verilog lines, slice number i, `data` the
/// slice's data in the router's field order.
pub(super) fn port_from_slice_verilog(
    i: usize,
    j: usize,
    o: usize,
    v: usize,
    data: &str,
) -> Vec<String> {
    let sd = format!("slices${i}");
    let mut out = vec![
        format!("    out_data${o} = {data};"),
        format!(
            "    out_valid${o} = {sd}$out_valid${j}; out_head${o} = {sd}$out_head${j}; \
             out_tail${o} = {sd}$out_tail${j}; out_vc${o} = {sd}$out_vc${j};"
        ),
    ];
    for c in 0..v {
        out.push(format!(
            "    {sd}$out_credit${} = out_credit${};",
            j * v + c,
            o * v + c
        ));
    }
    out
}

/// Injection into slice 0, ejection from the last slice (its local output
/// through `eject` into the router's field order) and the inter-slice
/// channels (slice i-1's local output through `hand(i, ..)` into slice i's
/// order): the chain of Chien's Figures 5 and 6.
pub(super) fn chain<const W: usize>(
    io: &mut Io<'_, W>,
    slices: &mut [Router<W>],
    v: usize,
    eject: impl Fn(u64) -> u64,
    hand: impl Fn(usize, u64) -> u64,
) {
    let n = slices.len();
    let first = &mut slices[0];
    first.in_data[0].next = io.in_data[0].val();
    first.in_valid[0].next = io.in_valid[0].val();
    first.in_head[0].next = io.in_head[0].val();
    first.in_tail[0].next = io.in_tail[0].val();
    first.in_vc[0].next = io.in_vc[0].val();
    for c in 0..v {
        io.in_credit[c].next = first.in_credit[c].val();
    }
    let last = &mut slices[n - 1];
    io.out_data[0].next = Bits::<W>::from(eject(last.out_data[0].val().to_u64()));
    io.out_valid[0].next = last.out_valid[0].val();
    io.out_head[0].next = last.out_head[0].val();
    io.out_tail[0].next = last.out_tail[0].val();
    io.out_vc[0].next = last.out_vc[0].val();
    for c in 0..v {
        last.out_credit[c].next = io.out_credit[c].val();
    }
    for d in 1..n {
        let (lo, hi) = slices.split_at_mut(d);
        let (from, to) = (&mut lo[d - 1], &mut hi[0]);
        to.in_data[0].next = Bits::<W>::from(hand(d, from.out_data[0].val().to_u64()));
        to.in_valid[0].next = from.out_valid[0].val();
        to.in_head[0].next = from.out_head[0].val();
        to.in_tail[0].next = from.out_tail[0].val();
        to.in_vc[0].next = from.out_vc[0].val();
        for c in 0..v {
            from.out_credit[c].next = to.in_credit[c].val();
        }
    }
}

/// [`chain`] of `n` slices as Verilog lines: `eject` is the ejected data,
/// `hand(i)` slice i's local input data (a statement to put before, and
/// the expression).
pub(super) fn chain_verilog(
    n: usize,
    v: usize,
    eject: &str,
    hand: impl Fn(usize) -> (Option<String>, String),
) -> Vec<String> {
    let mut out = Vec::new();
    let mut line = |t: String| out.push(t);
    line("    // Injection into slice 0, ejection from the last slice.".into());
    line(
        "    slices$0$in_data$0 = in_data$0; slices$0$in_valid$0 = in_valid$0; \
         slices$0$in_head$0 = in_head$0; slices$0$in_tail$0 = in_tail$0; \
         slices$0$in_vc$0 = in_vc$0;"
            .into(),
    );
    let last = format!("slices${}", n - 1);
    line(format!("    out_data$0 = {eject};"));
    line(format!(
        "    out_valid$0 = {last}$out_valid$0; out_head$0 = {last}$out_head$0; \
         out_tail$0 = {last}$out_tail$0; out_vc$0 = {last}$out_vc$0;"
    ));
    for c in 0..v {
        line(format!(
            "    in_credit${c} = slices$0$in_credit${c}; {last}$out_credit${c} = out_credit${c};"
        ));
    }
    line("    // Inter-slice channels: slice i's local output into slice i+1.".into());
    for d in 1..n {
        let (from, to) = (format!("slices${}", d - 1), format!("slices${d}"));
        let (before, data) = hand(d);
        if let Some(before) = before {
            line(format!("    {before}"));
        }
        line(format!("    {to}$in_data$0 = {data};"));
        line(format!(
            "    {to}$in_valid$0 = {from}$out_valid$0; {to}$in_head$0 = {from}$out_head$0; \
             {to}$in_tail$0 = {from}$out_tail$0; {to}$in_vc$0 = {from}$out_vc$0;"
        ));
        for c in 0..v {
            line(format!("    {from}$out_credit${c} = {to}$in_credit${c};"));
        }
    }
    out
}
