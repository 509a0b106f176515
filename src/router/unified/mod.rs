//! The unified router (the microarchitecture of [`crate::router`]): input
//! buffers, route computation, VC allocation, switch allocation and one
//! P x P crossbar, outputs.
//!
//! Each pipeline stage has its own file. A part of the glue written as a
//! [`Stage`] is written once: its `#[hdl_gen] update` is the simulation
//! model and its code the Verilog (an always block of loops over ports and
//! VCs). The other parts hold their model (`*_glue`) beside the Verilog
//! text they emit (`*_verilog`), so that a change to one is made next to
//! the other; the co-simulation tests hold the two equal. `Unified::glue`
//! and `Unified::glue_code` call the stages in order:
//!
//! - [`input_buffers`]: a flit into the buffer of its VC, credits back;
//! - [`route`]: per input port one waiting head flit, its decoders and the
//!   look-ahead decoders, its permitted output VCs; the routes decoded a
//!   cycle early (a [`Stage`]);
//! - [`routing_table`]: the programmable table's word lines, contents,
//!   programming and reset ROM (`table`);
//! - [`vc_alloc`]: output VCs to waiting head flits, the look-ahead mux,
//!   the held output VCs (a [`Stage`]);
//! - [`switch_alloc`]: the wiring of the
//!   [`switch_allocator::SwitchAllocator`] (per input port one flit with a
//!   credit, per output port one input port: a block of its own whose
//!   `update` is both its model and its Verilog), the crossbar's inputs
//!   and header update; the input VCs' may-send flags (a [`Stage`]);
//! - [`outputs`]: the flits as they cross, downstream credits or levels:
//!   the [`output_unit::OutputUnit`], a block of its own whose `update`
//!   is both its model and its Verilog;
//! - the round-robin pointers of routing (a [`Stage`], here).

// Index loops on purpose in the stages' models: the same indices as their
// Verilog, which the co-simulation holds equal to the model.
#[allow(clippy::needless_range_loop)]
pub mod input_buffers;
pub mod output_unit;
#[allow(clippy::needless_range_loop)]
pub mod outputs;
#[allow(clippy::needless_range_loop)]
pub mod route;
#[allow(clippy::needless_range_loop)]
pub mod routing_table;
#[allow(clippy::needless_range_loop)]
pub mod switch_alloc;
pub mod switch_allocator;
#[allow(clippy::needless_range_loop)]
pub mod vc_alloc;
pub mod vc_allocator;

use rust_hdl::core::ast::VerilogStatement;
use rust_hdl::prelude::*;

use super::block::Io;
use super::lookahead::{self, LookaheadTable, NextNode};
use super::organization::{transparent_block, wire};
use super::tables::{self, CompiledTable};
use super::{ClassId, Count, LaField, PortId, VcId, LA_BITS, ON_OFF_SLACK, PORT_BITS, VC_BITS};
use crate::blocks::address_decoder::{DecoderShape, HeaderUpdate, Outputs};
use crate::blocks::flow_control::{mask_for, COUNT_BITS};
use crate::blocks::{AddressDecoder, Crossbar, FlowControlUnit, LookaheadMux};
use crate::error::Result;
use crate::spec::{FlowControl, RouterSpec};
use input_buffers::InputBuffers;
use output_unit::OutputUnit;
use outputs::OutputSide;
use route::EarlyRoutes;
use switch_alloc::{MaySend, SwitchRequests};
pub(crate) use switch_allocator::SwitchAllocator;
use vc_alloc::HeldVcs;
pub(crate) use vc_allocator::VcAllocator;

/// The blocks of a unified router and what its glue needs to know; its
/// ports are the router's (docs/interface.md, [`crate::router::Router`]),
/// and it is the router's core module.
pub struct Unified<const W: usize> {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset.
    pub rst: Signal<In, Bit>,
    /// The router's coordinates.
    pub node_id: Signal<In, Bits<W>>,
    /// Per input port: the arriving flit, its valid, head, tail and VC.
    pub in_data: Vec<Signal<In, Bits<W>>>,
    /// See `in_data`.
    pub in_valid: Vec<Signal<In, Bit>>,
    /// See `in_data`.
    pub in_head: Vec<Signal<In, Bit>>,
    /// See `in_data`.
    pub in_tail: Vec<Signal<In, Bit>>,
    /// See `in_data`.
    pub in_vc: Vec<Signal<In, VcId>>,
    /// Per output VC: a credit pulse (or the on/off level) from downstream.
    pub out_credit: Vec<Signal<In, Bit>>,
    /// Per input VC: a credit pulse (or the on/off level) upstream.
    pub in_credit: Vec<Signal<Out, Bit>>,
    /// Per output port: the leaving flit, its valid, head, tail and VC.
    pub out_data: Vec<Signal<Out, Bits<W>>>,
    /// See `out_data`.
    pub out_valid: Vec<Signal<Out, Bit>>,
    /// See `out_data`.
    pub out_head: Vec<Signal<Out, Bit>>,
    /// See `out_data`.
    pub out_tail: Vec<Signal<Out, Bit>>,
    /// See `out_data`.
    pub out_vc: Vec<Signal<Out, VcId>>,
    /// Table programming: write entry `cfg_addr` with ports `cfg_mask` and
    /// VC class `cfg_class`.
    pub cfg_we: Signal<In, Bit>,
    /// See `cfg_we`.
    pub cfg_addr: Signal<In, super::EsAddr>,
    /// See `cfg_we` (P bits with a table, none without).
    pub cfg_mask: Vec<Signal<In, Bit>>,
    /// See `cfg_we`.
    pub cfg_class: Signal<In, ClassId>,
    /// The table (LAPSES §5.2.1): per entry e, port o: `tmask[e P + o]`;
    /// per entry its VC class. Empty without a table.
    tmask: Vec<DFF<Bit>>,
    tclass: Vec<DFF<ClassId>>,
    /// Input buffers, one per input VC i = q V + c.
    pub(crate) fcu: Vec<FlowControlUnit<W>>,
    /// One address decoder per input VC i = q V + c, each reading its own
    /// buffer's front flit, so the round-robin choice of the waiting VC
    /// selects among decoded answers instead of preceding the decoder (VC
    /// allocation is the router's critical path); with look-ahead only the
    /// local port's (the others read their hop from the head flit).
    dec: Vec<AddressDecoder<W>>,
    /// The decoded route kept in flip-flops ([`route`], `early`): per input
    /// port a decoder of the arriving flit; per input VC i and output VC
    /// k the permitted output VCs of its front flit (`fcand[i P V + k]`)
    /// and of the flit after it (`acand`), set from the next state, the
    /// decoders `dec` then reading the flit two places after the front.
    /// Empty where the route is decoded in its cycle.
    indec: Vec<AddressDecoder<W>>,
    fcand: Vec<DFF<Bit>>,
    acand: Vec<DFF<Bit>>,
    /// Look-ahead (LAPSES §3.2): per input port q and link output port j
    /// (but q's own link), a decoder of the field the head leaves by j
    /// with: the next router's ports; index `la_at[q P + j]`.
    ladec: Vec<AddressDecoder<W>>,
    /// Per input port: the mux that keeps the granted port's field.
    lamux: Vec<LookaheadMux<W>>,
    /// Per input VC: the look-ahead field its head flit leaves with.
    rla: Vec<DFF<LaField>>,
    /// VC allocation: output VCs to waiting head flits (Chien's routing
    /// arbiter with the VCs' state).
    valloc: VcAllocator,
    /// Switch allocation: per input port one ready VC, input ports to
    /// output ports, per flit.
    salloc: SwitchAllocator,
    xbar: Crossbar<W>,
    /// Per input VC: it holds an output VC, and which (port, VC).
    routed: Vec<DFF<Bit>>,
    rport: Vec<DFF<PortId>>,
    rvc: Vec<DFF<VcId>>,
    /// Per output port its flit and VC; per output VC k = o V + v: held by
    /// a packet, its downstream credits or level.
    output_unit: OutputUnit<W>,
    /// Per input VC: it holds an output VC and that VC may send (a credit,
    /// or the on level), kept in a flip-flop of the input VC so that
    /// switch allocation, the router's critical path, starts from a
    /// flip-flop instead of a selection among every output VC's flags.
    /// Exact: only its holder sends on an output VC, so the input VC's own
    /// send is the only decrement.
    cok: Vec<DFF<Bit>>,
    /// Per input port: round-robin pointer of the VC chosen for routing.
    rptr: Vec<DFF<VcId>>,
    /// The reset, for the stages' code ([`Stage`]).
    reset: Signal<Local, Bit>,
    /// Per input port: a head waits for routing, and on which VC (0 when
    /// none waits), chosen round robin ([`route`]).
    rany: Vec<Signal<Local, Bit>>,
    rsel: Vec<Signal<Local, VcId>>,
    /// Per input VC: its head was granted an output VC that counts, its
    /// front flit is a tail that leaves now ([`vc_alloc`]).
    granted: Vec<Signal<Local, Bit>>,
    leaves: Vec<Signal<Local, Bit>>,
    /// Per input port: the output VC its chosen VC sends on ([`switch_alloc`]).
    svc: Vec<Signal<Local, VcId>>,
    /// Per input port, with look-ahead: the field the mux chose for its
    /// granted head.
    lasel: Vec<Signal<Local, LaField>>,
    /// Port o, VC c, VC 0, port 0, an empty field: for the stages'
    /// comparisons.
    port_id: Vec<Constant<PortId>>,
    vc_id: Vec<Constant<VcId>>,
    vc_zero: Constant<VcId>,
    /// VC 1, V - 1, and the mask of the VC numbers' bits (the round-robin
    /// pointers).
    vc_one: Constant<VcId>,
    vc_last: Constant<VcId>,
    vc_mask: Constant<VcId>,
    port_zero: Constant<PortId>,
    la_zero: Constant<LaField>,
    p: usize,
    v: usize,
    /// V + 1, the end of a stage's loop that names V (`for vw in v..v1`:
    /// an index `q * vw + c`).
    v1: usize,
    /// P V and P V + 1, likewise (an index `i * kw + k`).
    pv: usize,
    pv1: usize,
    onoff: bool,
    es: Option<tables::EsContents>,
    /// Per output port: the header update of a head flit leaving by it.
    updates: Vec<HeaderUpdate>,
    la: Option<LookaheadTable>,
    la_at: Vec<Option<usize>>,
    /// The crossbar's wired pairs (o P + i, `CompiledTable::crossbar_links`).
    links: Vec<bool>,
    /// Per output port j > 0: the node id of the router across it.
    next: Vec<NextNode>,
    /// Bits of the address fields: the look-ahead field starts here.
    ab: usize,
    /// Bits of the look-ahead field (`spec::lookahead_field_bits`; 0 without).
    fb: usize,
    /// One cycle per router (`pipeline = 1`): a head flit arriving into an
    /// empty input VC is routed and allocated in the cycle it arrives
    /// ([`route`]).
    bypass: bool,
    /// The route of each input VC's waiting head decoded one cycle early
    /// into flip-flops (`indec`, `fcand`, `acand`): without look-ahead,
    /// tables or one cycle per router, whose decoders read what is not in
    /// the buffer (the head's field, the table, the input pins).
    early: bool,
}

transparent_block!(
    scoped Unified<W>; clock, rst, node_id, in_data, in_valid, in_head, in_tail, in_vc, out_credit,
    in_credit, out_data, out_valid, out_head, out_tail, out_vc, cfg_we, cfg_addr, cfg_mask,
    cfg_class, tmask, tclass, fcu, dec, indec, fcand, acand, ladec, lamux, rla, valloc, salloc,
    xbar, routed, rport,
    rvc, output_unit, cok, rptr, reset, rany, rsel, granted, leaves, svc, lasel, port_id, vc_id, vc_zero,
    vc_one, vc_last, vc_mask, port_zero, la_zero
);

/// One stage of the glue, written once: its `#[hdl_gen] update` is the
/// simulation model, and rust-hdl makes its Verilog (`hdl`) and the
/// signals it drives (`connect`) from the same code. `S` names the stage,
/// so that the router implements this once per stage.
pub(super) trait Stage<S> {
    /// The stage's logic for one evaluation.
    fn update(&mut self);
    /// Marks what `update` drives.
    fn connect(&mut self);
    /// `update` as rust-hdl's Verilog AST.
    fn hdl(&self) -> Verilog;
}

/// The statements of stage `S`'s code.
fn stage_code<S, T: Stage<S>>(t: &T) -> Vec<VerilogStatement> {
    match t.hdl() {
        Verilog::Combinatorial(b) => b,
        _ => Vec::new(),
    }
}

impl<const W: usize> Unified<W> {
    /// The unified router of `spec` with its relation compiled as `table`.
    pub(super) fn new(spec: &RouterSpec, table: &CompiledTable) -> Result<Self> {
        let p = table.ports();
        let v = table.vcs();
        let pv = p * v;
        let d = spec.buffer_depth as usize;
        let onoff = spec.flow_control == FlowControl::OnOff;
        if onoff && d < ON_OFF_SLACK {
            return Err(super::unsupported(format!(
                "on-off flow control with buffer depth {d}"
            )));
        }
        let es = table.es.clone();
        let entries = es.as_ref().map_or(0, |t| t.entries.len());
        // Full and meta tables: the glue compares the head's address with
        // each entry's destination or cluster (no address decoder).
        let word_in_glue = es
            .as_ref()
            .is_some_and(|t| t.kind != tables::TableKind::Economical);
        // With a table, the decoder only drives the word line of the
        // entry its sign vector selects (LAPSES §5.2.1: node-id register
        // and comparators); the table registers give the outputs.
        let la = table.la.clone();
        // Look-ahead decoders: every input port, every link but its own
        // (a minimal route does not turn back), except on a unidirectional
        // torus, where going straight on leaves by the port it came in by.
        let straight = table.shape.topology == crate::spec::Topology::UniTorus;
        let mut la_at = vec![None; p * p];
        let mut nla = 0;
        if la.is_some() {
            for q in 0..p {
                for j in (1..p).filter(|&j| j != q || straight) {
                    la_at[q * p + j] = Some(nla);
                    nla += 1;
                }
            }
        }
        let fb = la.as_ref().map_or(0, |la| la.field_bits);
        let field_shape = la.as_ref().map(|la| lookahead::field_shape(table, la));
        let next_rows = la.as_ref().map_or(Vec::new(), |la| la.next.clone());
        let links = table.crossbar_links();
        let decoder = || match &es {
            None => AddressDecoder::new_unchecked(table.shape.clone(), &table.rows),
            Some(t) => AddressDecoder::new_unchecked(
                DecoderShape {
                    ports: entries,
                    vcs: 1,
                    outputs_are: Outputs::WordLines,
                    ..table.shape.clone()
                },
                &t.word_lines(),
            ),
        };
        let ladec = match field_shape {
            Some(shape) => (0..nla)
                .map(|_| AddressDecoder::new_unchecked(shape.clone(), &next_rows))
                .collect(),
            None => Vec::new(),
        };
        let early = la.is_none() && es.is_none() && spec.pipeline != 1;
        use crate::blocks::signals;
        Ok(Unified {
            clock: Signal::default(),
            rst: Signal::default(),
            node_id: Signal::default(),
            in_data: signals(p),
            in_valid: signals(p),
            in_head: signals(p),
            in_tail: signals(p),
            in_vc: signals(p),
            out_credit: signals(pv),
            in_credit: signals(pv),
            out_data: signals(p),
            out_valid: signals(p),
            out_head: signals(p),
            out_tail: signals(p),
            out_vc: signals(p),
            cfg_we: Signal::default(),
            cfg_addr: Signal::default(),
            cfg_mask: signals(if es.is_some() { p } else { 0 }),
            cfg_class: Signal::default(),
            tmask: dffs(entries * p),
            tclass: dffs(entries),
            fcu: table
                .buffered_inputs()
                .into_iter()
                .map(|buffered| {
                    let unit = if onoff {
                        FlowControlUnit::on_off_unchecked(d, ON_OFF_SLACK)
                    } else {
                        FlowControlUnit::new_unchecked(d, false)
                    }
                    .stored_in(spec.buffers)
                    // The decoders read the address and look-ahead fields.
                    .fields_in_flops(table.shape.dims * table.shape.field_bits + fb);
                    // An input VC no flit arrives on keeps no buffer.
                    if buffered {
                        unit
                    } else {
                        unit.absent()
                    }
                })
                .collect(),
            dec: (0..if la.is_some() {
                v
            } else if word_in_glue {
                0
            } else {
                p * v
            })
                .map(|_| decoder())
                .collect(),
            indec: (0..if early { p } else { 0 }).map(|_| decoder()).collect(),
            fcand: dffs(if early { pv * pv } else { 0 }),
            acand: dffs(if early { pv * pv } else { 0 }),
            ladec,
            lamux: (0..if la.is_some() { p } else { 0 })
                .map(|_| LookaheadMux::new_unchecked(fb, p))
                .collect(),
            rla: dffs(if la.is_some() { pv } else { 0 }),
            valloc: VcAllocator::new(p, v, d, &links, table.atomic, spec.path_selection),
            salloc: SwitchAllocator::new(p, v),
            xbar: Crossbar::per_flit_linking_unchecked(p, &links),
            routed: dffs(pv),
            rport: dffs(pv),
            rvc: dffs(pv),
            output_unit: OutputUnit::new(p, v, d, onoff),
            cok: dffs(pv),
            rptr: dffs(p),
            reset: Signal::default(),
            rany: signals(p),
            rsel: signals(p),
            granted: signals(pv),
            leaves: signals(pv),
            svc: signals(p),
            lasel: signals(if la.is_some() { p } else { 0 }),
            port_id: (0..p)
                .map(|o| Constant::new(PortId::from(o as u64)))
                .collect(),
            vc_id: (0..v)
                .map(|c| Constant::new(VcId::from(c as u64)))
                .collect(),
            vc_zero: Constant::new(VcId::from(0u64)),
            vc_one: Constant::new(VcId::from(1u64)),
            vc_last: Constant::new(VcId::from(v as u64 - 1)),
            vc_mask: Constant::new(VcId::from(mask_for(v - 1) as u64)),
            port_zero: Constant::new(PortId::from(0u64)),
            la_zero: Constant::new(LaField::from(0u64)),
            p,
            v,
            v1: v + 1,
            pv,
            pv1: pv + 1,
            onoff,
            // A VC-port core's port o is on link o / per_link.
            updates: (0..p)
                .map(|o| HeaderUpdate::new(&table.shape, o / table.per_link))
                .collect(),
            next: if la.is_some() {
                (1..p).map(|j| NextNode::new(&table.shape, j)).collect()
            } else {
                Vec::new()
            },
            ab: table.shape.dims * table.shape.field_bits,
            fb,
            bypass: spec.pipeline == 1,
            early,
            la,
            la_at,
            links,
            es,
        })
    }

    /// The routing table's contents, with a table.
    pub(super) fn es(&self) -> Option<&tables::EsContents> {
        self.es.as_ref()
    }

    /// VCs per port.
    pub fn vcs(&self) -> usize {
        self.v
    }

    /// Input buffers present (an input VC no flit arrives on keeps none).
    pub fn buffers_present(&self) -> usize {
        self.fcu.iter().filter(|u| u.is_present()).count()
    }

    /// One evaluation of the glue (the simulation model): the stages in
    /// pipeline order, then the next state of every flip-flop.
    fn glue(&mut self) {
        Stage::<Clocks>::update(self);
        Stage::<InputBuffers>::update(self);
        let waiting = self.route_glue();
        let perm = self.permitted_glue(&waiting);
        self.vc_alloc_glue(&waiting, &perm);
        self.lookahead_mux_glue(&waiting);
        Stage::<SwitchRequests>::update(self);
        self.switch_alloc_glue();
        self.commit_glue(&waiting);
        Stage::<OutputSide>::update(self);
        // State.
        Stage::<MaySend>::update(self);
        Stage::<HeldVcs>::update(self);
        self.table_state_glue();
        Stage::<EarlyRoutes>::update(self);
        Stage::<Pointers>::update(self);
    }

    /// The glue as Verilog: the stages written once ([`Stage`]) as their
    /// code, the others as the text beside their models (an always block
    /// per stage: inputs, routing, VC allocation, switch allocation,
    /// outputs, state).
    pub(super) fn glue_code(&self) -> Vec<VerilogStatement> {
        let mut code = stage_code::<Clocks, _>(self);
        code.extend(stage_code::<InputBuffers, _>(self));
        code.extend(stage_code::<SwitchRequests, _>(self));
        code.push(crate::hdl::code::verbatim(self.glue_verilog()));
        code.extend(stage_code::<OutputSide, _>(self));
        code.extend(stage_code::<EarlyRoutes, _>(self));
        code.extend(stage_code::<Pointers, _>(self));
        code.extend(stage_code::<MaySend, _>(self));
        code.extend(stage_code::<HeldVcs, _>(self));
        code
    }

    /// The router block's ports into this router's, its outputs out: the
    /// model of the router block around a unified router (the core of a
    /// slice of another organization; a unified router's own core module
    /// is this block).
    pub(super) fn wire_ports(&mut self, io: &mut Io<'_, W>) {
        self.clock.next = io.clock.val();
        self.rst.next = io.rst.val();
        self.node_id.next = io.node_id.val();
        self.cfg_we.next = io.cfg_we.val();
        self.cfg_addr.next = io.cfg_addr.val();
        self.cfg_class.next = io.cfg_class.val();
        for (m, s) in self.cfg_mask.iter_mut().enumerate() {
            s.next = io.cfg_mask[m].val();
        }
        for q in 0..self.p {
            self.in_data[q].next = io.in_data[q].val();
            self.in_valid[q].next = io.in_valid[q].val();
            self.in_head[q].next = io.in_head[q].val();
            self.in_tail[q].next = io.in_tail[q].val();
            self.in_vc[q].next = io.in_vc[q].val();
            io.out_data[q].next = self.out_data[q].val();
            io.out_valid[q].next = self.out_valid[q].val();
            io.out_head[q].next = self.out_head[q].val();
            io.out_tail[q].next = self.out_tail[q].val();
            io.out_vc[q].next = self.out_vc[q].val();
        }
        for k in 0..self.pv {
            self.out_credit[k].next = io.out_credit[k].val();
            io.in_credit[k].next = self.in_credit[k].val();
        }
    }

    /// Marks driven the inputs [`Unified::wire_ports`] drives (the router
    /// block's `connect`: rust-hdl checks every input of a sub-block is
    /// driven by its parent).
    pub(super) fn connect_ports(&mut self) {
        self.clock.connect();
        self.rst.connect();
        self.node_id.connect();
        self.cfg_we.connect();
        self.cfg_addr.connect();
        self.cfg_class.connect();
        wire(&mut self.cfg_mask);
        wire(&mut self.in_data);
        wire(&mut self.in_valid);
        wire(&mut self.in_head);
        wire(&mut self.in_tail);
        wire(&mut self.in_vc);
        wire(&mut self.out_credit);
    }

    /// [`Unified::wire_ports`] as Verilog.
    pub(super) fn ports_verilog(&self) -> String {
        let u = super::organization::UNIFIED;
        let mut s = String::from(
            "    // The router's ports, the unified router's.\n    always @(*) begin\n",
        );
        let mut line = |t: String| {
            s.push_str("        ");
            s.push_str(&t);
            s.push('\n');
        };
        for x in ["clock", "rst", "node_id", "cfg_we", "cfg_addr", "cfg_class"] {
            line(format!("{u}${x} = {x};"));
        }
        for m in 0..self.cfg_mask.len() {
            line(format!("{u}$cfg_mask${m} = cfg_mask${m};"));
        }
        for q in 0..self.p {
            for x in ["data", "valid", "head", "tail", "vc"] {
                line(format!("{u}$in_{x}${q} = in_{x}${q};"));
                line(format!("out_{x}${q} = {u}$out_{x}${q};"));
            }
        }
        for k in 0..self.pv {
            line(format!("{u}$out_credit${k} = out_credit${k};"));
            line(format!("in_credit${k} = {u}$in_credit${k};"));
        }
        s.push_str("    end\n");
        s
    }

    /// The glue written as text, beside its model (stage by stage, until
    /// each is a [`Stage`]).
    fn glue_verilog(&self) -> String {
        let mut s = String::new();
        let mut line = |t: String| {
            s.push_str("    ");
            s.push_str(&t);
            s.push('\n');
        };
        self.declarations_verilog(&mut line);

        self.route_verilog(&mut line);
        self.permitted_verilog(&mut line);
        self.vc_alloc_verilog(&mut line);
        self.lookahead_mux_verilog(&mut line);
        self.switch_alloc_verilog(&mut line);
        if self.es.is_some() {
            line("// State: the routing table.".into());
            line("always @(*) begin".into());
            self.table_state_verilog(&mut line);
            line("end".into());
        }
        self.table_rom_verilog(&mut line);
        s.push('\n');
        s
    }

    /// The registers every stage shares: the round-robin choices, the
    /// switch's and the allocator's answers, the may-send flags.
    fn declarations_verilog(&self, line: &mut impl FnMut(String)) {
        let pb = PORT_BITS;
        line("// Glue intermediates.".into());
        for q in 0..self.p {
            line(format!("reg [{}:0] sport${q};", pb - 1));
        }
        for q in 0..self.p {
            line(format!("reg [{}:0] shown${q};", W - 1));
        }
        if self.la.is_some() {
            for q in 0..self.p {
                line(format!("reg [{}:0] sla${q};", LA_BITS - 1));
            }
        }
    }
}

/// The round-robin pointers of routing ([`Stage`]): each advances every
/// cycle, from V - 1 back to 0 (a waiting VC is first in line once every V
/// cycles), masked so that synthesis sees the pointer's high bits constant.
struct Pointers;

impl<const W: usize> Stage<Pointers> for Unified<W> {
    #[hdl_gen]
    fn update(&mut self) {
        for q in 0..self.p {
            self.rptr[q].d.next = (self.rptr[q].q.val() + self.vc_one.val()) & self.vc_mask.val();
            if self.rptr[q].q.val() == self.vc_last.val() {
                self.rptr[q].d.next = self.vc_zero.val();
            }
            if self.reset.val() {
                self.rptr[q].d.next = self.vc_zero.val();
            }
        }
    }
}

/// The clock (and reset) of every block and flip-flop ([`Stage`]).
struct Clocks;

impl<const W: usize> Stage<Clocks> for Unified<W> {
    #[hdl_gen]
    fn update(&mut self) {
        self.reset.next = self.rst.val();
        for i in 0..self.pv {
            self.fcu[i].clock.next = self.clock.val();
            self.fcu[i].rst.next = self.rst.val();
        }
        self.valloc.clock.next = self.clock.val();
        self.valloc.rst.next = self.rst.val();
        self.salloc.clock.next = self.clock.val();
        self.salloc.rst.next = self.rst.val();
        self.xbar.clock.next = self.clock.val();
        self.xbar.rst.next = self.rst.val();
        // (The registers' clocks: the writer drops these copies.)
        for i in 0..self.pv {
            self.routed[i].clock.next = self.clock.val();
            self.rport[i].clock.next = self.clock.val();
            self.rvc[i].clock.next = self.clock.val();
            self.cok[i].clock.next = self.clock.val();
        }
        for j in 0..self.fcand.len() {
            self.fcand[j].clock.next = self.clock.val();
            self.acand[j].clock.next = self.clock.val();
        }
        for q in 0..self.p {
            self.rptr[q].clock.next = self.clock.val();
        }
        for j in 0..self.tmask.len() {
            self.tmask[j].clock.next = self.clock.val();
        }
        for e in 0..self.tclass.len() {
            self.tclass[e].clock.next = self.clock.val();
        }
        for i in 0..self.rla.len() {
            self.rla[i].clock.next = self.clock.val();
        }
    }
}

impl<const W: usize> Logic for Unified<W> {
    fn update(&mut self) {
        self.glue();
    }

    fn hdl(&self) -> Verilog {
        Verilog::Combinatorial(self.glue_code())
    }

    fn connect(&mut self) {
        let p = self.p;
        // What the stages written once drive.
        Stage::<Clocks>::connect(self);
        Stage::<InputBuffers>::connect(self);
        Stage::<EarlyRoutes>::connect(self);
        Stage::<HeldVcs>::connect(self);
        Stage::<MaySend>::connect(self);
        Stage::<Pointers>::connect(self);
        Stage::<OutputSide>::connect(self);
        Stage::<SwitchRequests>::connect(self);
        // What the stages written as text drive.
        for s in self.rany.iter_mut() {
            s.connect();
        }
        for s in self.rsel.iter_mut() {
            s.connect();
        }
        for s in self.lasel.iter_mut() {
            s.connect();
        }
        for s in self.svc.iter_mut() {
            s.connect();
        }
        for d in self
            .dec
            .iter_mut()
            .chain(self.indec.iter_mut())
            .chain(self.ladec.iter_mut())
        {
            d.node_id.connect();
            d.in_data.connect();
            d.in_valid.connect();
            d.in_head.connect();
        }
        for x in self.lamux.iter_mut() {
            x.in_hdr.connect();
            for s in x.next_mask.iter_mut() {
                s.connect();
            }
            for s in x.sel.iter_mut() {
                s.connect();
            }
        }
        for r in self.tmask.iter_mut() {
            r.d.connect();
        }
        for r in self.tclass.iter_mut() {
            r.d.connect();
        }
        for q in 0..p {
            self.xbar.in_data[q].connect();
            self.xbar.in_head[q].connect();
            self.xbar.in_tail[q].connect();
        }
        let a = &mut self.valloc;
        for s in a.busy.iter_mut().chain(&mut a.perm) {
            s.connect();
        }
        for s in a.req.iter_mut().chain(&mut a.behind).chain(&mut a.leaves) {
            s.connect();
        }
        for s in a.credit.iter_mut() {
            s.connect();
        }
        for s in a.held_port.iter_mut() {
            s.connect();
        }
        for s in a.held_vc.iter_mut() {
            s.connect();
        }
    }
}

/// `n` flip-flops.
fn dffs<T: Synth>(n: usize) -> Vec<DFF<T>> {
    (0..n).map(|_| DFF::default()).collect()
}

/// The first VC (of `v`) at or after `ptr`, then from 0, whose flag is set:
/// a rotating-priority choice.
fn round_robin(ptr: usize, flags: &[bool]) -> Option<usize> {
    (0..2)
        .flat_map(|pass| (0..flags.len()).map(move |c| (pass, c)))
        .find(|&(pass, c)| flags[c] && ((pass == 0) == (c >= ptr)))
        .map(|(_, c)| c)
}

/// The Verilog condition "VC `c` comes in pass `pass` of the rotating
/// order starting at pointer `ptr`" ([`round_robin`]), folded where it is
/// constant (Verilator flags constant comparisons).
fn rr_condition(pass: usize, c: usize, ptr: &str) -> String {
    let top = (1 << VC_BITS) - 1;
    match (pass, c) {
        // Pass 0: c >= ptr.
        (0, 0) => format!("({ptr} == {VC_BITS}'d0)"),
        (0, c) if c == top => "1'b1".into(),
        (0, c) => format!("({ptr} <= {VC_BITS}'d{c})"),
        // Pass 1: c < ptr.
        (_, 0) => format!("({ptr} != {VC_BITS}'d0)"),
        (_, c) if c == top => "1'b0".into(),
        (_, c) => format!("({ptr} > {VC_BITS}'d{c})"),
    }
}

/// Verilog for [`round_robin`] at input port `q`: `any$q` and `sel$q` from
/// the flags `flag$i` of its VCs i = q V + c and the pointer `ptr$q`.
fn round_robin_verilog(
    q: usize,
    v: usize,
    flag: &str,
    any: &str,
    sel: &str,
    ptr: &str,
) -> Vec<String> {
    let mut out = vec![format!("    {any}${q} = 1'b0; {sel}${q} = {VC_BITS}'d0;")];
    for pass in 0..2 {
        for c in 0..v {
            let cond = rr_condition(pass, c, &format!("{ptr}${q}$q"));
            if cond != "1'b0" {
                out.push(format!(
                    "    if ({flag}${} & {cond} & ~{any}${q}) begin {any}${q} = 1'b1; \
                     {sel}${q} = {VC_BITS}'d{c}; end",
                    q * v + c
                ));
            }
        }
    }
    out
}

/// Verilog for the signal `name(i)` of the input VC i = q V + c that input
/// port q's routing round robin chose (`rsel$q`, VC 0 when none waits).
fn by_rsel(q: usize, v: usize, name: impl Fn(usize) -> String) -> String {
    by_sel(q, v, "rsel", name)
}

/// Verilog for the signal `name(i)` of the input VC i = q V + c that the
/// choice `sel$q` names.
fn by_sel(q: usize, v: usize, sel: &str, name: impl Fn(usize) -> String) -> String {
    let vb = VC_BITS;
    (1..v).rev().fold(name(q * v), |rest, c| {
        format!("(({sel}${q} == {vb}'d{c}) ? {} : {rest})", name(q * v + c))
    })
}

/// Bits of a credit counter, for the stages that compare credits.
const CB: usize = COUNT_BITS;
