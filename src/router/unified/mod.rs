//! The unified router (the microarchitecture of [`crate::router`]): input
//! buffers, route computation, VC allocation, switch allocation and one
//! P x P crossbar, outputs.
//!
//! Each pipeline stage has its own file holding its part of the simulation
//! model (`glue`) beside the Verilog it emits (`glue_verilog`), so that a
//! change to one is made next to the other; the co-simulation tests hold
//! the two equal. `Unified::glue` and `Unified::glue_verilog` call the
//! stages in order:
//!
//! - [`input_buffers`]: a flit into the buffer of its VC, credits back;
//! - [`route`]: per input port one waiting head flit, its decoders and the
//!   look-ahead decoders, its permitted output VCs;
//! - [`routing_table`]: the programmable table's word lines, contents,
//!   programming and reset ROM (`table`);
//! - [`vc_alloc`]: output VCs to waiting head flits, the look-ahead mux,
//!   the held output VCs;
//! - [`switch_alloc`]: the wiring of the
//!   [`switch_allocator::SwitchAllocator`] (per input port one flit with a
//!   credit, per output port one input port: a block of its own whose
//!   `update` is both its model and its Verilog), the crossbar's inputs
//!   and header update;
//! - [`outputs`]: the flits as they cross, downstream credits or levels:
//!   the [`output_unit::OutputUnit`], a block of its own whose `update`
//!   is both its model and its Verilog.
//!
//! The state (every flip-flop's next value) is written in one Verilog
//! always block, each stage contributing its registers.

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

use rust_hdl::prelude::*;

use super::block::Io;
use super::lookahead::{self, LookaheadTable, NextNode};
use super::organization::transparent_block;
use super::tables::{self, CompiledTable};
use super::{ClassId, Count, LaField, PortId, VcId, LA_BITS, ON_OFF_SLACK, PORT_BITS, VC_BITS};
use crate::blocks::address_decoder::{DecoderShape, HeaderUpdate, Outputs};
use crate::blocks::flow_control::{mask_for, COUNT_BITS};
use crate::blocks::{AddressDecoder, Crossbar, FlowControlUnit, LookaheadMux};
use crate::error::Result;
use crate::spec::{FlowControl, RouterSpec};
use output_unit::OutputUnit;
pub(crate) use switch_allocator::SwitchAllocator;
pub(crate) use vc_allocator::VcAllocator;

/// The blocks of a unified router and what its glue needs to know.
pub struct Unified<const W: usize> {
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
    p: usize,
    v: usize,
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
    Unified<W>; tmask, tclass, fcu, dec, indec, fcand, acand, ladec, lamux, rla, valloc, salloc,
    xbar, routed, rport,
    rvc, output_unit, cok, rptr
);

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
        Ok(Unified {
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
            p,
            v,
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
    pub(super) fn glue(&mut self, io: &mut Io<'_, W>) {
        self.clocks_glue(io);
        self.input_buffers_glue(io);
        let waiting = self.route_glue(io);
        let perm = self.permitted_glue(io, &waiting);
        self.vc_alloc_glue(&waiting, &perm);
        self.lookahead_mux_glue(&waiting);
        let switch = self.switch_alloc_glue();
        let alloc = self.commit_glue(&waiting);
        self.outputs_glue(io, &switch, &alloc);
        // State.
        let rst = io.rst.val();
        self.switch_state_glue(io, &waiting, &alloc);
        self.held_state_glue(rst, &waiting, &alloc);
        self.pointers_glue(rst);
        self.table_state_glue(io);
        self.route_state_glue();
    }

    /// The glue as Verilog, one always block per stage (inputs, routing,
    /// VC allocation, switch allocation, outputs, state).
    pub(super) fn glue_verilog(&self) -> String {
        let mut s = String::new();
        let mut line = |t: String| {
            s.push_str("    ");
            s.push_str(&t);
            s.push('\n');
        };
        self.declarations_verilog(&mut line);
        self.clocks_verilog(&mut line);
        self.input_buffers_verilog(&mut line);
        self.route_verilog(&mut line);
        self.permitted_verilog(&mut line);
        self.vc_alloc_verilog(&mut line);
        self.lookahead_mux_verilog(&mut line);
        self.switch_alloc_verilog(&mut line);
        self.outputs_verilog(&mut line);
        line("// State: held output VCs, round-robin pointers.".into());
        line("always @(*) begin".into());
        self.may_send_verilog(&mut line);
        for q in 0..self.p {
            for c in 0..self.v {
                self.switch_state_verilog(&mut line, q, c);
                self.held_state_verilog(&mut line, q, c);
            }
            self.pointers_verilog(&mut line, q);
        }
        self.table_state_verilog(&mut line);
        line("end".into());
        self.table_rom_verilog(&mut line);
        self.route_state_verilog(&mut line);
        s.push('\n');
        s
    }

    /// The registers every stage shares: the round-robin choices, the
    /// switch's and the allocator's answers, the may-send flags.
    fn declarations_verilog(&self, line: &mut impl FnMut(String)) {
        let (vb, pb) = (VC_BITS, PORT_BITS);
        line("// Glue intermediates.".into());
        for q in 0..self.p {
            line(format!("reg rany${q}; reg [{}:0] rsel${q};", vb - 1));
            line(format!(
                "reg [{}:0] sport${q}; reg [{}:0] svc${q};",
                pb - 1,
                vb - 1
            ));
        }
        line("reg [255:0] msend0; reg [255:0] msend1;".into());
        for q in 0..self.p {
            line(format!("reg [{}:0] shown${q};", W - 1));
        }
        if self.la.is_some() {
            for q in 0..self.p {
                line(format!("reg [{}:0] sla${q};", LA_BITS - 1));
            }
        }
    }

    /// The clock (and reset) of every block and flip-flop.
    fn clocks_glue(&mut self, io: &Io<'_, W>) {
        let clk = io.clock.val();
        let rst = io.rst.val();
        for i in 0..self.p * self.v {
            self.fcu[i].clock.next = clk;
            self.fcu[i].rst.next = rst;
            self.routed[i].clock.next = clk;
            self.rport[i].clock.next = clk;
            self.rvc[i].clock.next = clk;
        }
        for r in self.cok.iter_mut() {
            r.clock.next = clk;
        }
        for r in self.fcand.iter_mut().chain(self.acand.iter_mut()) {
            r.clock.next = clk;
        }
        for q in 0..self.p {
            self.rptr[q].clock.next = clk;
        }
        for t in self.tmask.iter_mut() {
            t.clock.next = clk;
        }
        for t in self.tclass.iter_mut() {
            t.clock.next = clk;
        }
        for r in self.rla.iter_mut() {
            r.clock.next = clk;
        }
        self.valloc.clock.next = clk;
        self.valloc.rst.next = rst;
        self.salloc.clock.next = clk;
        self.salloc.rst.next = rst;
        self.xbar.clock.next = clk;
        self.xbar.rst.next = rst;
    }

    /// [`Unified::clocks_glue`] as Verilog.
    fn clocks_verilog(&self, line: &mut impl FnMut(String)) {
        line("// Clocks and resets of the blocks.".into());
        line("always @(*) begin".into());
        for i in 0..self.p * self.v {
            line(format!("    fcu${i}$clock = clock; fcu${i}$rst = rst;"));
            line(format!(
                "    routed${i}$clock = clock; rport${i}$clock = clock; rvc${i}$clock = clock; \
                 cok${i}$clock = clock;"
            ));
        }
        for q in 0..self.p {
            line(format!("    rptr${q}$clock = clock;"));
        }
        for j in 0..self.tmask.len() {
            line(format!("    tmask${j}$clock = clock;"));
        }
        for e in 0..self.tclass.len() {
            line(format!("    tclass${e}$clock = clock;"));
        }
        for i in 0..self.rla.len() {
            line(format!("    rla${i}$clock = clock;"));
        }
        for j in 0..self.fcand.len() {
            line(format!(
                "    fcand${j}$clock = clock; acand${j}$clock = clock;"
            ));
        }
        line("    valloc$clock = clock; valloc$rst = rst;".into());
        line("    salloc$clock = clock; salloc$rst = rst;".into());
        line("    xbar$clock = clock; xbar$rst = rst;".into());
        line("end".into());
    }

    /// The round-robin pointers of routing advance every cycle (a waiting
    /// VC is first in line once every V cycles).
    fn pointers_glue(&mut self, rst: bool) {
        let v = self.v;
        let step = |x: VcId| {
            if rst || x.index() + 1 >= v {
                VcId::from(0u64)
            } else {
                x + VcId::from(1u64)
            }
        };
        for q in 0..self.p {
            self.rptr[q].d.next = step(self.rptr[q].q.val());
        }
    }

    /// [`Unified::pointers_glue`] of input port `q` as Verilog.
    fn pointers_verilog(&self, line: &mut impl FnMut(String), q: usize) {
        let (v, vb) = (self.v, VC_BITS);
        let step = |r: &str| {
            if v == 1 {
                format!("{vb}'d0")
            } else {
                // Masked (no change: the sum is at most V - 1) so that
                // synthesis sees the pointer's high bits constant.
                format!(
                    "({r} >= {vb}'d{}) ? {vb}'d0 : ({r} + {vb}'d1) & {vb}'d{}",
                    v - 1,
                    mask_for(v - 1)
                )
            }
        };
        line(format!(
            "    if (rst) rptr${q}$d = {vb}'d0; else rptr${q}$d = {};",
            step(&format!("rptr${q}$q"))
        ));
    }
}

impl<const W: usize> Logic for Unified<W> {
    fn update(&mut self) {}

    fn connect(&mut self) {
        let (p, v) = (self.p, self.v);
        for i in 0..p * v {
            let u = &mut self.fcu[i];
            u.clock.connect();
            u.rst.connect();
            u.in_data.connect();
            u.in_valid.connect();
            u.in_head.connect();
            u.in_tail.connect();
            u.out_ready.connect();
            u.credit_in.connect();
            u.send_req.connect();
            self.routed[i].clock.connect();
            self.routed[i].d.connect();
            self.rport[i].clock.connect();
            self.rport[i].d.connect();
            self.rvc[i].clock.connect();
            self.rvc[i].d.connect();
        }
        connect_dffs(&mut self.cok);
        let u = &mut self.output_unit;
        u.clock.connect();
        u.rst.connect();
        for s in u
            .xbar_valid
            .iter_mut()
            .chain(&mut u.xbar_head)
            .chain(&mut u.xbar_tail)
        {
            s.connect();
        }
        for s in u.xbar_data.iter_mut() {
            s.connect();
        }
        for s in u
            .grant
            .iter_mut()
            .chain(&mut u.alloc_valid)
            .chain(&mut u.out_credit)
        {
            s.connect();
        }
        for s in u.send_vc.iter_mut().chain(&mut u.alloc_vc) {
            s.connect();
        }
        for s in u.alloc_port.iter_mut() {
            s.connect();
        }
        connect_dffs(&mut self.rla);
        connect_dffs(&mut self.fcand);
        connect_dffs(&mut self.acand);
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
        connect_dffs(&mut self.tmask);
        connect_dffs(&mut self.tclass);
        for q in 0..p {
            self.rptr[q].clock.connect();
            self.rptr[q].d.connect();
            for j in 0..p {
                self.xbar.grant[q * p + j].connect();
            }
            self.xbar.in_data[q].connect();
            self.xbar.in_valid[q].connect();
            self.xbar.in_head[q].connect();
            self.xbar.in_tail[q].connect();
        }
        let a = &mut self.valloc;
        a.clock.connect();
        a.rst.connect();
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
        let s = &mut self.salloc;
        s.clock.connect();
        s.rst.connect();
        for i in 0..p * v {
            s.valid[i].connect();
            s.may_send[i].connect();
            s.port[i].connect();
        }
        self.xbar.clock.connect();
        self.xbar.rst.connect();
    }
}

/// `n` flip-flops.
fn dffs<T: Synth>(n: usize) -> Vec<DFF<T>> {
    (0..n).map(|_| DFF::default()).collect()
}

/// Marks the clock and input of each flip-flop of `regs` driven (by the
/// glue).
fn connect_dffs<T: Synth>(regs: &mut [DFF<T>]) {
    for r in regs {
        r.clock.connect();
        r.d.connect();
    }
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
