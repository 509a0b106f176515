//! A whole wormhole router assembled from the blocks of `crate::blocks`, as
//! one rust-hdl `LogicBlock`, and its Verilog with the external interface of
//! docs/interface.md.
//!
//! # Microarchitecture
//!
//! Chien's canonical router (Chien §3, Figure 1) with virtual channels:
//!
//! - Input side, per input port p and VC v (input VC i = p * V + v): a
//!   [`FlowControlUnit`] receive buffer of D flits; the flit's `in_vc`
//!   selects the buffer, and the buffer's credit pulses go back upstream on
//!   `p<p>_in_credit[v]`.
//! - Per input VC: an [`AddressDecoder`] on the flit at the buffer's front,
//!   whose 3^n sign-vector table is compiled from the routing relation
//!   ([`tables::compile`]); it also computes every candidate's updated header
//!   in parallel (Chien §3).
//! - One [`RoutingArbiter`] over the P * V input VCs and P * V output VCs
//!   (output VC k = o * V + v): each input VC's candidates are the output
//!   VCs the relation permits, in dimension order (STATIC-XY); an output VC
//!   is free when no packet holds it and its buffer has room. An output VC
//!   is held by one packet from its head flit to its tail flit.
//! - One [`Crossbar`] of P * V inputs and outputs (input VC to output VC),
//!   holding the connection from head to tail (wormhole switching). A flit
//!   crosses only when its output VC's buffer has room (internal credits).
//! - Per output port: a [`VcController`] (Chien Figure 1: VC controller):
//!   V buffers of D flits, multiplexed round robin onto the link, each with
//!   a credit counter for the downstream buffer (`p<p>_out_credit[v]`).
//!
//! Chien §3.1 lists the setup path this follows: decode the address and
//! request (address decoder), arbitrate (routing arbiter), select the
//! updated header, drive the crossbar, then the VC controller.
//!
//! Departure from Chien §5 (Figures 5-8), to be closed: every algorithm
//! uses this one unified crossbar, and it switches input VCs to output VCs
//! (P V x P V) rather than physical ports; Chien's dimension slices (one
//! 3x3 crossbar per dimension for dimension order, §5.1, Figure 5), 4x4
//! plane slices (planar-adaptive, §5.2, Figure 6) and the turn-model and
//! *-channels organizations (§5.3-5.4, Figures 7-8) are not built yet. The
//! output buffers in the VC controllers also add one cycle to Chien's
//! canonical path.
//!
//! Latency: a head flit that arrives in cycle t is written into its input
//! buffer at the end of t, is decoded, allocated and switched into its output
//! VC's buffer in cycle t + 1, and leaves on the link in cycle t + 2 when
//! the link is free and the downstream buffer has a credit: two cycles from
//! head in to head out. Body flits follow one per cycle per output VC.
//!
//! # Supported configurations
//!
//! [`supported`] says which: 2-D meshes, relative or absolute addressing
//! (absolute: a `node_id` input loads every decoder's node-id register each
//! cycle, LAPSES §5.2.1), credit flow
//! control, no look-ahead, no routing table, W = 16, 32 or 64, P * V <= 15,
//! any path
//! selection, and relations a sign-vector table holds (the answer depends
//! on the sign vector alone, not on the input; one direction per
//! dimension): dimension order, negative-first, west-first, north-last,
//! planar-adaptive and Duato on 2-D meshes. Everything else returns
//! `Error::InvalidSpec` naming what is not supported yet.
//!
//! VC classes: each input VC has one address decoder per VC v, whose table
//! holds the ports on which the relation permits VC v for each sign vector
//! (so planar-adaptive's and Duato's classes, which depend on the
//! destination, are exact). MAX-CREDIT scores an output VC by the room in
//! its buffer in the VC controller, MIN-MUX by the number of its port's VCs
//! held by packets (LAPSES §4.1).
//!
//! # Why the glue is written twice
//!
//! rust-hdl's `#[hdl_gen]` writes wrong Verilog for a Vec field of an
//! element of a Vec of sub-blocks (`self.dec[i].cand[o]` becomes
//! `dec$0$cand[o]`, with no error). The router's glue therefore has a plain
//! Rust `update` (the simulation model) and a hand-written `hdl` emitting
//! the same logic as Verilog text; the co-simulation test holds them equal.

pub mod tables;

use std::fmt::Write as _;

use rust_hdl::prelude::*;

use crate::algo::{Network, Relation};
use crate::blocks::cosim::{each, InputSignal};
use crate::blocks::flow_control::COUNT_BITS;
use crate::blocks::vc_controller::VC_BITS;
use crate::blocks::{
    rename_top, signals, AddressDecoder, Crossbar, FlowControlUnit, HwBlock, RoutingArbiter,
    VcController,
};
use crate::error::{Error, Result};
use crate::spec::{Addressing, FlowControl, RouterSpec, TableStorage, Topology};
use tables::CompiledTable;

type Count = Bits<COUNT_BITS>;
type VcId = Bits<VC_BITS>;

/// Flit widths the router is built for.
pub const ROUTER_WIDTHS: [u32; 3] = [16, 32, 64];

/// Whether routergen can build a router for `spec`; the error names what is
/// not supported yet.
pub fn supported(spec: &RouterSpec) -> Result<()> {
    compile(spec).map(|_| ())
}

fn unsupported(what: String) -> Error {
    Error::InvalidSpec(format!(
        "router generation does not support {what} yet (supported: 2-D meshes, relative or \
         absolute addressing, credit flow control, no look-ahead, no routing table, flit \
         widths 16, 32 and 64)"
    ))
}

/// The relation of `spec`, compiled for the router's tables.
pub fn compile(spec: &RouterSpec) -> Result<CompiledTable> {
    if spec.topology != Topology::Mesh {
        return Err(unsupported(format!("the {} topology", spec.topology)));
    }
    if spec.dims != 2 {
        return Err(unsupported(format!("{}-D meshes", spec.dims)));
    }
    if spec.flow_control != FlowControl::Credit {
        return Err(unsupported(format!("{} flow control", spec.flow_control)));
    }
    if spec.lookahead {
        return Err(unsupported("look-ahead routing".into()));
    }
    if spec.table != TableStorage::None {
        return Err(unsupported(format!("the {} routing table", spec.table)));
    }
    if !ROUTER_WIDTHS.contains(&spec.flit_width) {
        return Err(unsupported(format!("flit width {}", spec.flit_width)));
    }
    let p = spec.physical_ports() as usize;
    let pv = p * spec.vcs as usize;
    if pv > 15 {
        return Err(unsupported(format!(
            "{} virtual channels on {p} ports (the routing arbiter numbers at most 15 \
             output VCs)",
            spec.vcs
        )));
    }
    if !(1..=16).contains(&spec.buffer_depth) {
        return Err(unsupported(format!("buffer depth {}", spec.buffer_depth)));
    }
    let field = spec.address_field_bits() as usize;
    if field * spec.dims as usize > spec.flit_width as usize || !(2..=8).contains(&field) {
        return Err(unsupported(format!(
            "{field}-bit address fields in a {}-bit flit",
            spec.flit_width
        )));
    }
    let net = Network::new(spec.topology, spec.dims, spec.radix)?;
    let rel = Relation::new(spec.algorithm, net, spec.vcs)?;
    tables::compile(&rel)
}

/// A whole router (see the module documentation).
///
/// Ports (P physical ports, V VCs, k = p * V + v): `in_data$p` (W),
/// `in_valid$p`, `in_head$p`, `in_tail$p`, `in_vc$p` (3), `out_credit$k`
/// in; `in_credit$k`, `out_data$p` (W), `out_valid$p`, `out_head$p`,
/// `out_tail$p`, `out_vc$p` (3) out.
#[derive(LogicBlock)]
pub struct Router<const W: usize> {
    pub clock: Signal<In, Clock>,
    pub rst: Signal<In, Bit>,
    /// The router's coordinates (absolute addressing), dimension 0 in the
    /// low field; unused with relative addressing.
    pub node_id: Signal<In, Bits<W>>,
    pub in_data: Vec<Signal<In, Bits<W>>>,
    pub in_valid: Vec<Signal<In, Bit>>,
    pub in_head: Vec<Signal<In, Bit>>,
    pub in_tail: Vec<Signal<In, Bit>>,
    pub in_vc: Vec<Signal<In, VcId>>,
    pub out_credit: Vec<Signal<In, Bit>>,
    pub in_credit: Vec<Signal<Out, Bit>>,
    pub out_data: Vec<Signal<Out, Bits<W>>>,
    pub out_valid: Vec<Signal<Out, Bit>>,
    pub out_head: Vec<Signal<Out, Bit>>,
    pub out_tail: Vec<Signal<Out, Bit>>,
    pub out_vc: Vec<Signal<Out, VcId>>,
    fcu: Vec<FlowControlUnit<W>>,
    dec: Vec<AddressDecoder<W>>,
    arb: RoutingArbiter,
    xbar: Crossbar<W>,
    vcc: Vec<VcController<W>>,
    /// Free slots of each output VC's buffer in its VC controller.
    credits: Vec<DFF<Count>>,
    /// Input VC i holds output VC k (index i * P * V + k).
    conn: Vec<DFF<Bit>>,
    _p: usize,
    _v: usize,
    _f: usize,
    _depth: usize,
    _absolute: bool,
    _table: CompiledTable,
}

impl<const W: usize> Router<W> {
    /// The router of `spec`, or why it cannot be built yet.
    pub fn new(spec: &RouterSpec) -> Result<Self> {
        if spec.flit_width as usize != W {
            return Err(unsupported(format!(
                "flit width {} in a {W}-bit router",
                spec.flit_width
            )));
        }
        let table = compile(spec)?;
        let p = table.ports;
        let v = table.vcs;
        let pv = p * v;
        let d = spec.buffer_depth as usize;
        let field = spec.address_field_bits() as usize;
        Ok(Router {
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
            fcu: (0..pv).map(|_| FlowControlUnit::new(d, false)).collect(),
            dec: (0..pv * v)
                .map(|x| {
                    AddressDecoder::with_field_bits(
                        table.dims,
                        field,
                        spec.addressing,
                        &table.lane_masks[x % v],
                    )
                })
                .collect(),
            arb: RoutingArbiter::new(pv, table.freedom(), spec.path_selection),
            xbar: Crossbar::new(pv),
            vcc: (0..p).map(|_| VcController::new(v, d)).collect(),
            credits: (0..pv).map(|_| DFF::default()).collect(),
            conn: (0..pv * pv).map(|_| DFF::default()).collect(),
            _p: p,
            _v: v,
            _f: table.freedom(),
            _depth: d,
            _absolute: spec.addressing == Addressing::Absolute,
            _table: table,
        })
    }

    /// Physical ports P.
    pub fn ports(&self) -> usize {
        self._p
    }

    /// Virtual channels per physical channel V.
    pub fn vcs(&self) -> usize {
        self._v
    }
}

impl<const W: usize> Logic for Router<W> {
    fn update(&mut self) {
        let (p, v, f) = (self._p, self._v, self._f);
        let pv = p * v;
        let clk = self.clock.val();
        let rst = self.rst.val();
        for k in 0..pv {
            self.fcu[k].clock.next = clk;
            self.fcu[k].rst.next = rst;
            self.credits[k].clock.next = clk;
        }
        for x in 0..pv * v {
            self.dec[x].clock.next = clk;
            self.dec[x].rst.next = rst;
            // Absolute addressing: the node-id register follows `node_id`.
            self.dec[x].cfg_we.next = self._absolute;
            self.dec[x].cfg_node.next = self.node_id.val();
        }
        for m in 0..pv * pv {
            self.conn[m].clock.next = clk;
        }
        self.arb.clock.next = clk;
        self.arb.rst.next = rst;
        self.xbar.clock.next = clk;
        self.xbar.rst.next = rst;
        for o in 0..p {
            self.vcc[o].clock.next = clk;
            self.vcc[o].rst.next = rst;
        }
        // Input side: the flit goes to the buffer of its VC.
        for q in 0..p {
            for c in 0..v {
                let k = q * v + c;
                self.fcu[k].in_data.next = self.in_data[q].val();
                self.fcu[k].in_valid.next =
                    self.in_valid[q].val() && self.in_vc[q].val().index() == c;
                self.fcu[k].in_head.next = self.in_head[q].val();
                self.fcu[k].in_tail.next = self.in_tail[q].val();
                self.fcu[k].credit_in.next = false;
                self.fcu[k].send_req.next = false;
                self.in_credit[k].next = self.fcu[k].credit_out.val();
            }
        }
        // Address decoders on the flits at the buffers' fronts.
        for x in 0..pv * v {
            let i = x / v;
            self.dec[x].in_data.next = self.fcu[i].out_data.val();
            self.dec[x].in_valid.next = self.fcu[i].out_valid.val();
            self.dec[x].in_head.next = self.fcu[i].out_head.val();
        }
        // Routing arbiter: requests, candidates, output status.
        let has_credit: Vec<bool> = (0..pv)
            .map(|k| self.credits[k].q.val() != Count::default())
            .collect();
        for (k, &room) in has_credit.iter().enumerate() {
            self.arb.out_free[k].next = !self.xbar.out_busy[k].val() && room;
            // MAX-CREDIT: room in the output VC's buffer; MIN-MUX: output
            // VCs of the same port held by packets (LAPSES §4.1).
            self.arb.out_credits[k].next = Bits::<8>::from(self.credits[k].q.val().to_u64());
            let o = k / v;
            let held = (0..v)
                .filter(|&c| self.xbar.out_busy[o * v + c].val())
                .count();
            self.arb.out_mux[k].next = Bits::<8>::from(held as u64);
        }
        for i in 0..pv {
            let bound = (0..pv).any(|k| self.conn[i * pv + k].q.val());
            self.arb.req[i].next =
                self.fcu[i].out_valid.val() && self.fcu[i].out_head.val() && !bound;
            for j in 0..f {
                let mut valid = false;
                let mut cand = 0u64;
                let lane = i * v + self._table.slot_lane(j);
                for o in 0..p {
                    if self._table.slot_port(j, o) && self.dec[lane].cand[o].val() {
                        valid = true;
                        cand = self._table.slot_output_vc(j, o) as u64;
                    }
                }
                self.arb.cand[i * f + j].next = cand.into();
                self.arb.cand_valid[i * f + j].next = valid;
            }
        }
        // Switching: a flit crosses when its packet was granted an output
        // VC now, or holds one with room.
        for m in 0..pv * pv {
            self.xbar.grant[m].next = self.arb.grant_out[m].val();
        }
        for i in 0..pv {
            let granted = (0..pv).any(|k| self.arb.grant_out[k * pv + i].val());
            let holds = (0..pv).any(|k| self.conn[i * pv + k].q.val() && has_credit[k]);
            let go = self.fcu[i].out_valid.val() && (granted || holds);
            self.fcu[i].out_ready.next = go;
            self.xbar.in_valid[i].next = go;
            self.xbar.in_head[i].next = self.fcu[i].out_head.val();
            self.xbar.in_tail[i].next = self.fcu[i].out_tail.val();
            // A head flit leaves with the header of the output it was granted.
            let mut data = self.fcu[i].out_data.val();
            if self.fcu[i].out_head.val() {
                data = Bits::<W>::default();
                for o in 0..p {
                    if (0..v).any(|c| self.arb.grant_out[(o * v + c) * pv + i].val()) {
                        data = data | self.dec[i * v].hdr[o].val();
                    }
                }
            }
            self.xbar.in_data[i].next = data;
            for k in 0..pv {
                let m = i * pv + k;
                let moving = go && (self.arb.grant_out[k * pv + i].val() || self.conn[m].q.val());
                self.conn[m].d.next = if rst {
                    false
                } else if moving {
                    !self.fcu[i].out_tail.val()
                } else {
                    self.conn[m].q.val()
                };
            }
        }
        // Output side: output VC k = o * V + c feeds VC c of port o.
        for o in 0..p {
            for c in 0..v {
                let k = o * v + c;
                self.vcc[o].in_data[c].next = self.xbar.out_data[k].val();
                self.vcc[o].in_valid[c].next = self.xbar.out_valid[k].val();
                self.vcc[o].in_head[c].next = self.xbar.out_head[k].val();
                self.vcc[o].in_tail[c].next = self.xbar.out_tail[k].val();
                self.vcc[o].credit_in[c].next = self.out_credit[k].val();
                let mut next = self.credits[k].q.val();
                if self.xbar.out_valid[k].val() {
                    next = next - Count::from(1u64);
                }
                if self.vcc[o].credit_out[c].val() {
                    next = next + Count::from(1u64);
                }
                if rst {
                    next = Count::from(self._depth as u64);
                }
                self.credits[k].d.next = next;
            }
            self.out_data[o].next = self.vcc[o].phys_data.val();
            self.out_valid[o].next = self.vcc[o].phys_valid.val();
            self.out_head[o].next = self.vcc[o].phys_head.val();
            self.out_tail[o].next = self.vcc[o].phys_tail.val();
            self.out_vc[o].next = self.vcc[o].phys_vc.val();
        }
    }

    fn connect(&mut self) {
        let (p, v, f) = (self._p, self._v, self._f);
        let pv = p * v;
        for k in 0..pv {
            let u = &mut self.fcu[k];
            u.clock.connect();
            u.rst.connect();
            u.in_data.connect();
            u.in_valid.connect();
            u.in_head.connect();
            u.in_tail.connect();
            u.out_ready.connect();
            u.credit_in.connect();
            u.send_req.connect();
            self.credits[k].clock.connect();
            self.credits[k].d.connect();
            self.in_credit[k].connect();
            self.arb.out_free[k].connect();
            self.arb.out_credits[k].connect();
            self.arb.out_mux[k].connect();
            self.arb.req[k].connect();
            self.xbar.in_data[k].connect();
            self.xbar.in_valid[k].connect();
            self.xbar.in_head[k].connect();
            self.xbar.in_tail[k].connect();
        }
        for d in self.dec.iter_mut() {
            d.clock.connect();
            d.rst.connect();
            d.cfg_we.connect();
            d.cfg_node.connect();
            d.in_data.connect();
            d.in_valid.connect();
            d.in_head.connect();
        }
        for m in 0..pv * f {
            self.arb.cand[m].connect();
            self.arb.cand_valid[m].connect();
        }
        for m in 0..pv * pv {
            self.conn[m].clock.connect();
            self.conn[m].d.connect();
            self.xbar.grant[m].connect();
        }
        self.arb.clock.connect();
        self.arb.rst.connect();
        self.xbar.clock.connect();
        self.xbar.rst.connect();
        for o in 0..p {
            let c = &mut self.vcc[o];
            c.clock.connect();
            c.rst.connect();
            for x in 0..v {
                c.in_data[x].connect();
                c.in_valid[x].connect();
                c.in_head[x].connect();
                c.in_tail[x].connect();
                c.credit_in[x].connect();
            }
            self.out_data[o].connect();
            self.out_valid[o].connect();
            self.out_head[o].connect();
            self.out_tail[o].connect();
            self.out_vc[o].connect();
        }
    }

    fn hdl(&self) -> Verilog {
        Verilog::Custom(self.glue_verilog())
    }
}

impl<const W: usize> Router<W> {
    /// The glue logic of [`Logic::update`] as Verilog, one always block per
    /// stage (inputs, decoders, arbiter, switching, outputs).
    fn glue_verilog(&self) -> String {
        let (p, v, f) = (self._p, self._v, self._f);
        let pv = p * v;
        let cb = COUNT_BITS;
        let mut s = String::new();
        let mut line = |t: String| {
            s.push_str("    ");
            s.push_str(&t);
            s.push('\n');
        };
        line("// Clocks and resets of the blocks.".into());
        line("always @(*) begin".into());
        for k in 0..pv {
            line(format!("    fcu${k}$clock = clock; fcu${k}$rst = rst;"));
            line(format!("    credits${k}$clock = clock;"));
        }
        for x in 0..pv * v {
            line(format!("    dec${x}$clock = clock; dec${x}$rst = rst;"));
            line(format!(
                "    dec${x}$cfg_we = 1'b{}; dec${x}$cfg_node = node_id;",
                u8::from(self._absolute)
            ));
        }
        for m in 0..pv * pv {
            line(format!("    conn${m}$clock = clock;"));
        }
        line("    arb$clock = clock; arb$rst = rst;".into());
        line("    xbar$clock = clock; xbar$rst = rst;".into());
        for o in 0..p {
            line(format!("    vcc${o}$clock = clock; vcc${o}$rst = rst;"));
        }
        line("end".into());

        line("// Input side: the flit goes to the buffer of its VC.".into());
        line("always @(*) begin".into());
        for q in 0..p {
            for c in 0..v {
                let k = q * v + c;
                line(format!("    fcu${k}$in_data = in_data${q};"));
                line(format!(
                    "    fcu${k}$in_valid = in_valid${q} & (in_vc${q} == {VC_BITS}'d{c});"
                ));
                line(format!("    fcu${k}$in_head = in_head${q};"));
                line(format!("    fcu${k}$in_tail = in_tail${q};"));
                line(format!(
                    "    fcu${k}$credit_in = 1'b0; fcu${k}$send_req = 1'b0;"
                ));
                line(format!("    in_credit${k} = fcu${k}$credit_out;"));
            }
        }
        line("end".into());

        line("// Address decoders on the flits at the buffers' fronts.".into());
        line("always @(*) begin".into());
        for x in 0..pv * v {
            let i = x / v;
            line(format!("    dec${x}$in_data = fcu${i}$out_data;"));
            line(format!("    dec${x}$in_valid = fcu${i}$out_valid;"));
            line(format!("    dec${x}$in_head = fcu${i}$out_head;"));
        }
        line("end".into());

        line("// Routing arbiter: requests, candidates, output status.".into());
        for k in 0..pv {
            line(format!("wire has_credit${k} = credits${k}$q != {cb}'d0;"));
        }
        for i in 0..pv {
            let any: Vec<String> = (0..pv).map(|k| format!("conn${}$q", i * pv + k)).collect();
            line(format!("wire bound${i} = {};", any.join(" | ")));
        }
        line("always @(*) begin".into());
        for k in 0..pv {
            line(format!(
                "    arb$out_free${k} = ~xbar$out_busy${k} & has_credit${k};"
            ));
            line(format!(
                "    arb$out_credits${k} = {{{}'d0, credits${k}$q}};",
                8 - cb
            ));
            let o = k / v;
            let held: Vec<String> = (0..v)
                .map(|c| format!("{{7'd0, xbar$out_busy${}}}", o * v + c))
                .collect();
            line(format!("    arb$out_mux${k} = {};", held.join(" + ")));
        }
        for i in 0..pv {
            line(format!(
                "    arb$req${i} = fcu${i}$out_valid & fcu${i}$out_head & ~bound${i};"
            ));
            for j in 0..f {
                let m = i * f + j;
                line(format!(
                    "    arb$cand${m} = 4'd0; arb$cand_valid${m} = 1'b0;"
                ));
                let lane = i * v + self._table.slot_lane(j);
                for o in 0..p {
                    if self._table.slot_port(j, o) {
                        line(format!(
                            "    if (dec${lane}$cand${o}) begin arb$cand_valid${m} = 1'b1; \
                             arb$cand${m} = 4'd{}; end",
                            self._table.slot_output_vc(j, o)
                        ));
                    }
                }
            }
        }
        line("end".into());

        line("// Switching: granted now, or holding an output VC with room.".into());
        for i in 0..pv {
            let granted: Vec<String> = (0..pv)
                .map(|k| format!("arb$grant_out${}", k * pv + i))
                .collect();
            let holds: Vec<String> = (0..pv)
                .map(|k| format!("(conn${}$q & has_credit${k})", i * pv + k))
                .collect();
            line(format!(
                "wire go${i} = fcu${i}$out_valid & ({} | {});",
                granted.join(" | "),
                holds.join(" | ")
            ));
        }
        line("always @(*) begin".into());
        for m in 0..pv * pv {
            line(format!("    xbar$grant${m} = arb$grant_out${m};"));
        }
        for i in 0..pv {
            line(format!("    fcu${i}$out_ready = go${i};"));
            line(format!("    xbar$in_valid${i} = go${i};"));
            line(format!("    xbar$in_head${i} = fcu${i}$out_head;"));
            line(format!("    xbar$in_tail${i} = fcu${i}$out_tail;"));
            line(format!("    if (fcu${i}$out_head) begin"));
            line(format!("        xbar$in_data${i} = {W}'h0;"));
            for o in 0..p {
                let g: Vec<String> = (0..v)
                    .map(|c| format!("arb$grant_out${}", (o * v + c) * pv + i))
                    .collect();
                line(format!(
                    "        if ({}) xbar$in_data${i} = xbar$in_data${i} | dec${}$hdr${o};",
                    g.join(" | "),
                    i * v
                ));
            }
            line(format!("    end else xbar$in_data${i} = fcu${i}$out_data;"));
            for k in 0..pv {
                let m = i * pv + k;
                line(format!(
                    "    if (rst) conn${m}$d = 1'b0; \
                     else if (go${i} & (arb$grant_out${} | conn${m}$q)) conn${m}$d = ~fcu${i}$out_tail; \
                     else conn${m}$d = conn${m}$q;",
                    k * pv + i
                ));
            }
        }
        line("end".into());

        line("// Output side: output VC k = o * V + c feeds VC c of port o.".into());
        line("always @(*) begin".into());
        for o in 0..p {
            for c in 0..v {
                let k = o * v + c;
                line(format!("    vcc${o}$in_data${c} = xbar$out_data${k};"));
                line(format!("    vcc${o}$in_valid${c} = xbar$out_valid${k};"));
                line(format!("    vcc${o}$in_head${c} = xbar$out_head${k};"));
                line(format!("    vcc${o}$in_tail${c} = xbar$out_tail${k};"));
                line(format!("    vcc${o}$credit_in${c} = out_credit${k};"));
                line(format!(
                    "    if (rst) credits${k}$d = {cb}'d{}; \
                     else credits${k}$d = credits${k}$q - {{{}'d0, xbar$out_valid${k}}} \
                     + {{{}'d0, vcc${o}$credit_out${c}}};",
                    self._depth,
                    cb - 1,
                    cb - 1
                ));
            }
            line(format!("    out_data${o} = vcc${o}$phys_data;"));
            line(format!("    out_valid${o} = vcc${o}$phys_valid;"));
            line(format!("    out_head${o} = vcc${o}$phys_head;"));
            line(format!("    out_tail${o} = vcc${o}$phys_tail;"));
            line(format!("    out_vc${o} = vcc${o}$phys_vc;"));
        }
        line("end".into());
        let _ = writeln!(s);
        s
    }
}

impl<const W: usize> HwBlock for Router<W> {
    fn clock_mut(&mut self) -> Option<&mut Signal<In, Clock>> {
        Some(&mut self.clock)
    }
    fn visit_inputs(&mut self, f: &mut dyn FnMut(&mut dyn InputSignal)) {
        f(&mut self.rst);
        f(&mut self.node_id);
        each(&mut self.in_data, f);
        each(&mut self.in_valid, f);
        each(&mut self.in_head, f);
        each(&mut self.in_tail, f);
        each(&mut self.in_vc, f);
        each(&mut self.out_credit, f);
    }
    fn bias(&self, name: &str) -> Option<f64> {
        if name.starts_with("in_valid") {
            Some(0.5)
        } else if ["in_head", "in_tail", "out_credit"]
            .iter()
            .any(|x| name.starts_with(x))
        {
            Some(0.3)
        } else {
            None
        }
    }
    fn value_limit(&self, name: &str) -> Option<u64> {
        if name.starts_with("in_vc") {
            Some(self._v as u64)
        } else {
            None
        }
    }
}

/// Verilator waivers for the router's rust-hdl modules, with their reasons.
const CORE_WAIVERS: &str = "\
// Waiver UNUSEDSIGNAL: the router leaves some block outputs unread: the send
// side of the input buffers (each output VC's downstream credits live in its
// VC controller), the routing arbiter's per-candidate grants (the router uses
// its crossbar grants), and the buffers' overflow flags (never raised: the
// router sends into a buffer only with a credit for it).
/* verilator lint_off UNUSEDSIGNAL */
// Waiver UNOPTFLAT: each block is one always block, so Verilator sees a loop
// through the crossbar (busy flags out, flits in) and the routing arbiter;
// the busy flags and free flags come from flip-flops, no real loop exists.
/* verilator lint_off UNOPTFLAT */
";

/// Name of the rust-hdl router module inside the emitted file.
pub fn core_name(spec: &RouterSpec) -> String {
    format!("{}_core", spec.name())
}

/// The rust-hdl router's Verilog, its modules renamed under
/// `<name>_core` (no clean top module).
pub fn core_verilog(spec: &RouterSpec) -> Result<String> {
    fn emit<const W: usize>(spec: &RouterSpec) -> Result<String> {
        let mut r = Router::<W>::new(spec)?;
        crate::blocks::prepare(&mut r);
        Ok(generate_verilog(&r))
    }
    let text = match spec.flit_width {
        16 => emit::<16>(spec)?,
        32 => emit::<32>(spec)?,
        64 => emit::<64>(spec)?,
        w => return Err(unsupported(format!("flit width {w}"))),
    };
    Ok(format!(
        "{CORE_WAIVERS}{}",
        rename_top(&text, &core_name(spec))
    ))
}

/// The router of `spec` as Verilog: the rust-hdl modules renamed under the
/// configuration's name and a top module `spec.name()` with exactly the
/// ports of docs/interface.md.
pub fn verilog(spec: &RouterSpec) -> Result<String> {
    let core = core_verilog(spec)?;
    let top = top_verilog(spec)?;
    Ok(format!("{top}\n{core}"))
}

/// `max(1, ceil(log2 V))`, the width of the `*_vc` ports.
pub fn vc_bits(vcs: u32) -> u32 {
    let mut b = 1;
    while (1u32 << b) < vcs {
        b += 1;
    }
    b
}

const TOP_TEMPLATE: &str = include_str!("../../templates/router_top.v.tera");

/// The clean top module, from `templates/router_top.v.tera`.
pub fn top_verilog(spec: &RouterSpec) -> Result<String> {
    compile(spec)?;
    let mut ctx = tera::Context::new();
    let ports: Vec<usize> = (0..spec.physical_ports() as usize).collect();
    let vb = vc_bits(spec.vcs);
    ctx.insert("name", &spec.name());
    ctx.insert("core", &core_name(spec));
    ctx.insert("ports", &ports);
    ctx.insert("w", &spec.flit_width);
    ctx.insert("v", &spec.vcs);
    ctx.insert("vb", &vb);
    ctx.insert("vc_pad", &(VC_BITS as u32 - vb));
    ctx.insert("vc_inner", &VC_BITS);
    ctx.insert("lanes", &(0..spec.vcs as usize).collect::<Vec<_>>());
    let node_bits = spec.dims * spec.address_field_bits();
    ctx.insert("absolute", &(spec.addressing == Addressing::Absolute));
    ctx.insert("node_bits", &node_bits);
    ctx.insert("node_pad", &(spec.flit_width - node_bits));
    tera::Tera::one_off(TOP_TEMPLATE, &ctx, false)
        .map_err(|e| Error::InvalidSpec(format!("router top template: {e}")))
}

#[cfg(test)]
mod tests;
