//! The unified router (the microarchitecture of [`crate::router`]): input
//! buffers, route computation, VC allocation, switch allocation and one
//! P x P crossbar, outputs.
//!
//! Each pipeline stage has its own file, and its glue is written once as
//! [`Stage`]s: a stage's `#[hdl_gen] update` is the simulation model and
//! its code the Verilog (an always block of loops over ports and VCs),
//! the router's constants (header updates, table contents, look-ahead
//! rows) as localparams it indexes. In the core's Verilog each stage is
//! an always block of its own under a comment naming it.
//! `Unified::glue` and `Unified::glue_code` call the stages in order:
//!
//! - [`input_buffers`]: a flit into the buffer of its VC, credits back;
//! - [`route`]: per input port one waiting head flit and its decoders
//!   (`WaitingHeads`), the look-ahead decoders' inputs
//!   (`LookaheadRoutes`), its permitted output VCs (`Permitted`); the
//!   routes decoded a cycle early (`EarlyRoutes`);
//! - [`routing_table`]: the programmable table's word lines and columns
//!   (`WordLines`), contents, programming and reset ROM (`TableState`);
//! - [`vc_alloc`]: the requests to the [`VcAllocator`] (`VcRequests`,
//!   output VCs to waiting head flits: a block of its own whose `update`
//!   is both its model and its Verilog), the look-ahead mux's inputs
//!   (`LookaheadFields`), the held output VCs (`HeldVcs`);
//! - [`switch_alloc`]: the requests to the
//!   [`switch_allocator::SwitchAllocator`] (`SwitchRequests`; per input
//!   port one flit with a credit, per output port one input port: a block
//!   of its own), the crossbar's inputs and header update
//!   (`CrossbarInputs`); the input VCs' may-send flags (`MaySend`);
//! - [`outputs`]: the flits as they cross, downstream credits or levels:
//!   the [`output_unit::OutputUnit`], a block of its own whose `update`
//!   is both its model and its Verilog;
//! - the round-robin pointers of routing (`Pointers`, here).

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
use super::lookahead::{self, NextNode, NextSteps};
use super::organization::{transparent_block, wire};
use super::tables::{self, CompiledTable};
use super::{ClassId, PortId, VcId, ON_OFF_SLACK};
use crate::blocks::address_decoder::{DecoderShape, HeaderUpdate, Outputs, Rewrite};
use crate::blocks::flow_control::mask_for;
use crate::blocks::{AddressDecoder, Crossbar, FlowControlUnit, LookaheadMux};
use crate::error::Result;
use crate::spec::{FlowControl, RouterSpec};
use input_buffers::InputBuffers;
use output_unit::OutputUnit;
use outputs::OutputSide;
use route::{EarlyRoutes, LookaheadRoutes, Permitted, WaitingHeads};
use routing_table::{TableState, WordLines};
use switch_alloc::{CrossbarInputs, MaySend, SwitchRequests};
pub(crate) use switch_allocator::SwitchAllocator;
use vc_alloc::{HeldVcs, LookaheadFields, VcRequests};
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
    /// with: the next router's ports (`la_from`, `la_link`).
    ladec: Vec<AddressDecoder<W>>,
    /// Per input port: the mux that keeps the granted port's field.
    lamux: Vec<LookaheadMux<W>>,
    /// Per input VC: the look-ahead field its head flit leaves with, in
    /// its place in the header (bit `ab`; the other bits 0).
    rla: Vec<DFF<Bits<W>>>,
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
    /// Per input VC: its front flit is a tail that may leave now with a
    /// head right behind it; a head waits for routing; the flit it routes
    /// ([`route`]).
    behind: Vec<Signal<Local, Bit>>,
    waiting: Vec<Signal<Local, Bit>>,
    rdata: Vec<Signal<Local, Bits<W>>>,
    /// Per input port: a head waits for routing, on which VC (0 when none
    /// waits), chosen round robin, and its flit ([`route`]).
    rany: Vec<Signal<Local, Bit>>,
    rsel: Vec<Signal<Local, VcId>>,
    shown: Vec<Signal<Local, Bits<W>>>,
    /// Per input port q and output VC k (`q P V + k`): the waiting head
    /// may take k ([`route`]).
    perm: Vec<Signal<Local, Bit>>,
    /// With a table ([`routing_table`]): per input port q and entry e
    /// (`q E + e`), the head's word line; per output VC k and entry e
    /// (`k E + e`), e permits k; per input port, with a full or meta
    /// table, the head's destination is in the router's cluster.
    word: Vec<Signal<Local, Bit>>,
    tcol: Vec<Signal<Local, Bit>>,
    home: Vec<Signal<Local, Bit>>,
    /// With a table: per entry e and port o (`e P + o`), and per entry,
    /// the contents reset loads ([`routing_table::TableState`]).
    imask: Vec<Signal<Local, Bit>>,
    iclass: Vec<Signal<Local, ClassId>>,
    /// Per input VC: its head was granted an output VC that counts, its
    /// front flit is a tail that leaves now ([`vc_alloc`]).
    granted: Vec<Signal<Local, Bit>>,
    leaves: Vec<Signal<Local, Bit>>,
    /// Per input port: the output port and VC its chosen VC sends on,
    /// and with look-ahead the field its head leaves with
    /// ([`switch_alloc`]).
    sport: Vec<Signal<Local, PortId>>,
    svc: Vec<Signal<Local, VcId>>,
    /// Per input port: the chosen flit; with its look-ahead field (a
    /// head), before its header update; with look-ahead, that field in
    /// place.
    sflit: Vec<Signal<Local, Bits<W>>>,
    sdata: Vec<Signal<Local, Bits<W>>>,
    sla: Vec<Signal<Local, Bits<W>>>,
    /// Per input port, with look-ahead: the field the mux chose for its
    /// granted head, in place.
    lasel: Vec<Signal<Local, Bits<W>>>,
    /// Per look-ahead decoder: the waiting head it decodes.
    la_shown: Vec<Signal<Local, Bits<W>>>,
    /// Port o, VC c, VC 0, port 0, a flit of zeros: for the stages'
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
    zero: Constant<Bits<W>>,
    /// Per input VC, with one cycle per router: it keeps a buffer (a head
    /// may arrive into it). Empty otherwise.
    buffered: Vec<Constant<Bit>>,
    /// Per output port o, the header update of a head leaving by it
    /// ([`HeaderUpdate::rewrite`]; an identity where it has none); per
    /// output port o and input port q (`o P + q`), whether q's heads
    /// leaving by o are rewritten (the crossbar links them, and o has an
    /// update).
    hdr_keep: Vec<Constant<Bits<W>>>,
    hdr_moved: Vec<Constant<Bits<W>>>,
    hdr_step: Vec<Constant<Bits<W>>>,
    hdr_tie: Vec<Constant<Bits<W>>>,
    hdr_tie_to: Vec<Constant<Bits<W>>>,
    hdr_ties: Vec<Constant<Bit>>,
    hdr_rewrite: Vec<Constant<Bit>>,
    /// With look-ahead: per decoder m of `ladec`, the input port whose
    /// head it decodes and the link it decodes it across; per output port
    /// j (a link), the node id of the router across it
    /// ([`lookahead::NextNode::steps`]); where the field goes in the
    /// header.
    la_from: Vec<Constant<PortId>>,
    la_link: Vec<Constant<PortId>>,
    next_flip: Vec<Constant<Bits<W>>>,
    next_step: Vec<Constant<Bits<W>>>,
    next_wraps: Vec<Constant<Bit>>,
    next_coord: Vec<Constant<Bits<W>>>,
    next_edge: Vec<Constant<Bits<W>>>,
    next_wrap: Vec<Constant<Bits<W>>>,
    la_shift: Constant<Bits<8>>,
    /// With look-ahead: per row r of the field's table, its key (in place)
    /// and the output VCs it permits (`r P V + k`); the field's bits.
    la_key: Vec<Constant<Bits<W>>>,
    la_row: Vec<Constant<Bit>>,
    la_field: Constant<Bits<W>>,
    /// With a table: per VC class its number, and whether it permits
    /// output VC k (`class P V + k`); per entry of a full or meta table
    /// the address bits it compares and their value, whether it holds
    /// for any cluster or else for the router's own (`home`), and the
    /// bits of the cluster's coordinates ([`tables::EsContents::selector`]).
    class_id: Vec<Constant<ClassId>>,
    class_ok: Vec<Constant<Bit>>,
    ent_mask: Vec<Constant<Bits<W>>>,
    ent_value: Vec<Constant<Bits<W>>>,
    ent_any: Vec<Constant<Bit>>,
    ent_home: Vec<Constant<Bit>>,
    cluster_mask: Constant<Bits<W>>,
    /// With a table: per entry its address; its reset contents (`e P +
    /// o`; none for the full and meta tables, whose contents are those of
    /// the router's node: per row r of their ROM the node's id, and per
    /// entry its ports (`(r E + e) P + o`) and class (`r E + e`)).
    entry_addr: Vec<Constant<super::EsAddr>>,
    init_mask: Vec<Constant<Bit>>,
    init_class: Vec<Constant<ClassId>>,
    rom_node: Vec<Constant<Bits<W>>>,
    rom_mask: Vec<Constant<Bit>>,
    rom_class: Vec<Constant<ClassId>>,
    /// The VC allocator's credits 0 and 1 (the on/off level).
    score_zero: Constant<Bits<8>>,
    score_one: Constant<Bits<8>>,
    /// Input ports whose heads may be routed as they arrive (P with one
    /// cycle per router, else 0).
    bypass_ports: usize,
    /// Decoders `dec` reading their input VC's waiting head, and decoders
    /// reading the flit two places after the front (`early`).
    decode_now: usize,
    decode_ahead: usize,
    /// Input ports whose permitted VCs come from the routes decoded a
    /// cycle early, from the decoder, from the look-ahead field (ports
    /// `la_first` to P - 1), from a table ([`route::Permitted`]); input
    /// ports whose word lines the decoder drives, or the head's address
    /// ([`routing_table::WordLines`]).
    perm_early_ports: usize,
    perm_dec_ports: usize,
    la_first: usize,
    table_ports: usize,
    word_dec_ports: usize,
    word_sel_ports: usize,
    /// Entries E of the table (0 without), E + 1.
    entries: usize,
    entries1: usize,
    p: usize,
    /// P + 1 (an index `o * pw + q`).
    p1: usize,
    v: usize,
    /// V + 1, the end of a stage's loop that names V (`for vw in v..v1`:
    /// an index `q * vw + c`).
    v1: usize,
    /// P V and P V + 1, likewise (an index `i * kw + k`).
    pv: usize,
    pv1: usize,
    es: Option<tables::EsContents>,
    /// Bits of the address fields: the look-ahead field starts here; + 1.
    ab: usize,
    ab1: usize,
    /// Bits of the look-ahead field (`spec::lookahead_field_bits`; 0
    /// without); + 1.
    fb: usize,
    fb1: usize,
}

transparent_block!(
    scoped Unified<W>; clock, rst, node_id, in_data, in_valid, in_head, in_tail, in_vc, out_credit,
    in_credit, out_data, out_valid, out_head, out_tail, out_vc, cfg_we, cfg_addr, cfg_mask,
    cfg_class, tmask, tclass, fcu, dec, indec, fcand, acand, ladec, lamux, rla, valloc, salloc,
    xbar, routed, rport,
    rvc, output_unit, cok, rptr, reset, behind, waiting, rdata, rany, rsel, shown, perm, word, tcol, home, imask, iclass, granted, leaves,
    sport, svc, sflit, sdata, sla, lasel, la_shown, port_id, vc_id, vc_zero, vc_one, vc_last, vc_mask, port_zero, zero, buffered,
    hdr_keep, hdr_moved, hdr_step, hdr_tie, hdr_tie_to, hdr_ties, hdr_rewrite, la_from, la_link, next_flip, next_step, next_wraps, next_coord,
    next_edge, next_wrap, la_shift, la_key, la_row, la_field, class_id, class_ok, ent_mask, ent_value,
    ent_any, ent_home, cluster_mask, entry_addr, init_mask, init_class, rom_node, rom_mask, rom_class,
    score_zero, score_one
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
        let mut la_pairs = Vec::new();
        if la.is_some() {
            for q in 0..p {
                for j in (1..p).filter(|&j| j != q || straight) {
                    la_pairs.push((q, j));
                }
            }
        }
        let nla = la_pairs.len();
        // The node id across each link (port 0: none).
        let steps: Vec<NextSteps> = (0..if la.is_some() { p } else { 0 })
            .map(|j| match j {
                0 => NextSteps {
                    flip: 0,
                    step: 0,
                    edge: None,
                },
                _ => NextNode::new(&table.shape, j).steps(W),
            })
            .collect();
        let next = |f: &dyn Fn(&NextSteps) -> u64| -> Vec<Constant<Bits<W>>> {
            steps
                .iter()
                .map(|x| Constant::new(Bits::<W>::from(f(x))))
                .collect()
        };
        let fb = la.as_ref().map_or(0, |la| la.field_bits);
        let field_shape = la.as_ref().map(|la| lookahead::field_shape(table, la));
        let next_rows = la.as_ref().map_or(Vec::new(), |la| la.next.clone());
        let links = table.crossbar_links();
        let ab = table.shape.dims * table.shape.field_bits;
        // A VC-port core's port o is on link o / per_link.
        let updates: Vec<HeaderUpdate> = (0..p)
            .map(|o| HeaderUpdate::new(&table.shape, o / table.per_link))
            .collect();
        let rewrites: Vec<Option<Rewrite>> = updates.iter().map(|u| u.rewrite(W)).collect();
        let hdr = |f: &dyn Fn(&Rewrite) -> u64, none: u64| -> Vec<Constant<Bits<W>>> {
            rewrites
                .iter()
                .map(|r| Constant::new(Bits::<W>::from(r.as_ref().map_or(none, f))))
                .collect()
        };
        let all = if W >= 64 { u64::MAX } else { (1u64 << W) - 1 };
        let la_field = ((1u64 << fb) - 1) << ab;
        // Reset contents: the economical table's, the same at every node;
        // the full and meta tables' from a ROM by node id.
        let (init, rom) = match &es {
            Some(t) if t.kind == tables::TableKind::Economical => (t.entries.clone(), Vec::new()),
            Some(t) => (vec![Default::default(); entries], t.by_node.clone()),
            None => (Vec::new(), Vec::new()),
        };
        let selectors: Vec<(u64, u64, Option<bool>)> = match &es {
            Some(t) if word_in_glue => (0..entries).map(|e| t.selector(e)).collect(),
            _ => Vec::new(),
        };
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
        let bypass = spec.pipeline == 1;
        let buffered = table.buffered_inputs();
        let ndec = if la.is_some() {
            v
        } else if word_in_glue {
            0
        } else {
            p * v
        };
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
            fcu: buffered
                .iter()
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
                    if *buffered {
                        unit
                    } else {
                        unit.absent()
                    }
                })
                .collect(),
            dec: (0..ndec).map(|_| decoder()).collect(),
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
            behind: signals(pv),
            waiting: signals(pv),
            rdata: signals(pv),
            rany: signals(p),
            rsel: signals(p),
            shown: signals(p),
            perm: signals(p * pv),
            word: signals(if es.is_some() { p * entries } else { 0 }),
            tcol: signals(if es.is_some() { pv * entries } else { 0 }),
            home: signals(if word_in_glue { p } else { 0 }),
            imask: signals(entries * p),
            iclass: signals(entries),
            granted: signals(pv),
            leaves: signals(pv),
            sport: signals(p),
            svc: signals(p),
            sflit: signals(p),
            sdata: signals(p),
            sla: signals(if la.is_some() { p } else { 0 }),
            lasel: signals(if la.is_some() { p } else { 0 }),
            la_shown: signals(nla),
            la_from: la_pairs
                .iter()
                .map(|&(q, _)| Constant::new(PortId::from(q as u64)))
                .collect(),
            la_link: la_pairs
                .iter()
                .map(|&(_, j)| Constant::new(PortId::from(j as u64)))
                .collect(),
            next_flip: next(&|x| x.flip),
            next_step: next(&|x| x.step),
            next_wraps: steps
                .iter()
                .map(|x| Constant::new(x.edge.is_some()))
                .collect(),
            next_coord: next(&|x| x.edge.map_or(0, |e| e.0)),
            next_edge: next(&|x| x.edge.map_or(0, |e| e.1)),
            next_wrap: next(&|x| x.edge.map_or(0, |e| e.2)),
            la_shift: Constant::new(Bits::<8>::from(ab as u64)),
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
            zero: Constant::new(Bits::<W>::from(0u64)),
            buffered: if bypass {
                buffered.iter().map(|&b| Constant::new(b)).collect()
            } else {
                Vec::new()
            },
            hdr_keep: hdr(&|r| r.keep, all),
            hdr_moved: hdr(&|r| r.moved, 0),
            hdr_step: hdr(&|r| r.step, 0),
            hdr_tie: hdr(&|r| r.tie.map_or(0, |t| t.0), 0),
            hdr_tie_to: hdr(&|r| r.tie.map_or(0, |t| t.1), 0),
            hdr_ties: rewrites
                .iter()
                .map(|r| Constant::new(r.is_some_and(|r| r.tie.is_some())))
                .collect(),
            hdr_rewrite: (0..p * p)
                .map(|j| Constant::new(links[j] && rewrites[j / p].is_some()))
                .collect(),
            la_key: la.as_ref().map_or(Vec::new(), |la| {
                la.rows
                    .iter()
                    .map(|r| Constant::new(Bits::<W>::from(u64::from(r.key) << ab)))
                    .collect()
            }),
            la_row: la.as_ref().map_or(Vec::new(), |la| {
                la.rows
                    .iter()
                    .flat_map(|r| (0..pv).map(|k| Constant::new(r.permits(k))))
                    .collect()
            }),
            la_field: Constant::new(Bits::<W>::from(la_field)),
            class_id: es.as_ref().map_or(Vec::new(), |t| {
                (0..t.classes.len())
                    .map(|cl| Constant::new(ClassId::from(cl as u64)))
                    .collect()
            }),
            class_ok: es.as_ref().map_or(Vec::new(), |t| {
                (0..t.classes.len())
                    .flat_map(|cl| {
                        (0..pv).map(move |k| Constant::new(t.class_permits(cl, k / v, k % v)))
                    })
                    .collect()
            }),
            ent_mask: selectors
                .iter()
                .map(|x| Constant::new(Bits::<W>::from(x.0)))
                .collect(),
            ent_value: selectors
                .iter()
                .map(|x| Constant::new(Bits::<W>::from(x.1)))
                .collect(),
            ent_any: selectors
                .iter()
                .map(|x| Constant::new(x.2.is_none()))
                .collect(),
            ent_home: selectors
                .iter()
                .map(|x| Constant::new(x.2 == Some(true)))
                .collect(),
            cluster_mask: Constant::new(Bits::<W>::from(
                es.as_ref().map_or(0, |t| t.cluster_mask()),
            )),
            entry_addr: (0..entries)
                .map(|e| Constant::new(super::EsAddr::from(e as u64)))
                .collect(),
            init_mask: init
                .iter()
                .flat_map(|x| (0..p).map(move |o| Constant::new((x.mask >> o) & 1 == 1)))
                .collect(),
            init_class: init
                .iter()
                .map(|x| Constant::new(ClassId::from(u64::from(x.class))))
                .collect(),
            rom_node: rom
                .iter()
                .map(|(id, _)| Constant::new(Bits::<W>::from(*id)))
                .collect(),
            rom_mask: rom
                .iter()
                .flat_map(|(_, row)| row.iter())
                .flat_map(|x| (0..p).map(move |o| Constant::new((x.mask >> o) & 1 == 1)))
                .collect(),
            rom_class: rom
                .iter()
                .flat_map(|(_, row)| row.iter())
                .map(|x| Constant::new(ClassId::from(u64::from(x.class))))
                .collect(),
            score_zero: Constant::new(Bits::<8>::from(0u64)),
            score_one: Constant::new(Bits::<8>::from(1u64)),
            bypass_ports: if bypass { p } else { 0 },
            decode_now: if early { 0 } else { ndec },
            decode_ahead: if early { ndec } else { 0 },
            perm_early_ports: if early { p } else { 0 },
            perm_dec_ports: match (&es, &la) {
                (Some(_), _) => 0,
                (None, Some(_)) => 1,
                (None, None) if early => 0,
                (None, None) => p,
            },
            la_first: if la.is_some() { 1 } else { p },
            table_ports: if es.is_some() { p } else { 0 },
            word_dec_ports: if es.is_some() && !word_in_glue { p } else { 0 },
            word_sel_ports: if word_in_glue { p } else { 0 },
            entries,
            entries1: entries + 1,
            p,
            p1: p + 1,
            v,
            v1: v + 1,
            pv,
            pv1: pv + 1,
            ab,
            ab1: ab + 1,
            fb,
            fb1: fb + 1,
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
        Stage::<WaitingHeads>::update(self);
        Stage::<LookaheadRoutes>::update(self);
        Stage::<WordLines>::update(self);
        Stage::<Permitted>::update(self);
        Stage::<VcRequests>::update(self);
        Stage::<LookaheadFields>::update(self);
        Stage::<SwitchRequests>::update(self);
        Stage::<CrossbarInputs>::update(self);
        Stage::<OutputSide>::update(self);
        // State.
        Stage::<MaySend>::update(self);
        Stage::<HeldVcs>::update(self);
        Stage::<TableState>::update(self);
        Stage::<EarlyRoutes>::update(self);
        Stage::<Pointers>::update(self);
    }

    /// The glue as Verilog: each stage's code ([`Stage`]) as an always
    /// block of its own under a comment that names it, in the order of
    /// [`Unified::glue`].
    pub(super) fn glue_code(&self) -> Vec<VerilogStatement> {
        let stages = [
            ("Clocks and resets of the blocks.", stage_code::<Clocks, _>(self)),
            ("Input buffers: each flit into its VC's buffer, credits upstream.", stage_code::<InputBuffers, _>(self)),
            ("Route computation: per input port one waiting head, round robin, and its decoders.", stage_code::<WaitingHeads, _>(self)),
            ("Look-ahead: the next router's field along each link.", stage_code::<LookaheadRoutes, _>(self)),
            ("Routing table: word lines and columns.", stage_code::<WordLines, _>(self)),
            ("The output VCs each waiting head may take.", stage_code::<Permitted, _>(self)),
            ("VC allocation's requests.", stage_code::<VcRequests, _>(self)),
            ("Look-ahead mux: the granted link's field.", stage_code::<LookaheadFields, _>(self)),
            ("Switch allocation's requests and answers.", stage_code::<SwitchRequests, _>(self)),
            ("The crossbar's inputs: the chosen flit, its field, its header update.", stage_code::<CrossbarInputs, _>(self)),
            ("Outputs: the flits as they cross, downstream credits.", stage_code::<OutputSide, _>(self)),
            ("State: the routes decoded a cycle early.", stage_code::<EarlyRoutes, _>(self)),
            ("State: the round-robin pointers of routing.", stage_code::<Pointers, _>(self)),
            ("State: the held output VCs.", stage_code::<HeldVcs, _>(self)),
            ("State: the may-send flags.", stage_code::<MaySend, _>(self)),
            ("State: the routing table.", stage_code::<TableState, _>(self)),
        ];
        let mut code = Vec::new();
        for (title, stage) in stages.into_iter().filter(|(_, c)| !c.is_empty()) {
            code.push(crate::hdl::code::verbatim(format!("// {title}\n")));
            code.extend(stage);
        }
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
        // What the stages written once drive.
        Stage::<Clocks>::connect(self);
        Stage::<InputBuffers>::connect(self);
        Stage::<EarlyRoutes>::connect(self);
        Stage::<HeldVcs>::connect(self);
        Stage::<MaySend>::connect(self);
        Stage::<Pointers>::connect(self);
        Stage::<OutputSide>::connect(self);
        Stage::<SwitchRequests>::connect(self);
        Stage::<WaitingHeads>::connect(self);
        Stage::<WordLines>::connect(self);
        Stage::<Permitted>::connect(self);
        Stage::<TableState>::connect(self);
        Stage::<LookaheadRoutes>::connect(self);
        Stage::<LookaheadFields>::connect(self);
        Stage::<VcRequests>::connect(self);
        Stage::<CrossbarInputs>::connect(self);
    }
}

/// `n` flip-flops.
fn dffs<T: Synth>(n: usize) -> Vec<DFF<T>> {
    (0..n).map(|_| DFF::default()).collect()
}
