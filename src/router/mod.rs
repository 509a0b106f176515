//! A whole wormhole router assembled from the blocks of `crate::blocks`, as
//! one rust-hdl `LogicBlock`, and its Verilog with the external interface of
//! docs/interface.md, for meshes, tori (k-ary n-cubes) and hypercubes.
//!
//! # Microarchitecture
//!
//! Chien's canonical router (Chien §3, Figure 1) with virtual channels,
//! organized so that its cost grows with P V (buffers) and P^2 (switch),
//! not with (P V)^2 F. P physical ports (2n + 1; n + 1 on a hypercube), V
//! VCs, input VC i = q V + c, output VC k = o V + v.
//!
//! - Flow-control units (Chien: FC): one [`FlowControlUnit`] receive
//!   buffer of D flits per input VC; a flit goes to the buffer its `in_vc`
//!   names, and each slot freed pulses `p<q>_in_credit[c]` upstream. The
//!   flits sit in flip-flops, or with `--buffers bram` in a block RAM per
//!   input VC with the address and look-ahead fields also in flip-flops
//!   (the decoders read them); the router behaves the same either way.
//! - Address decoders (Chien: AD): one [`AddressDecoder`] per input VC,
//!   reading its buffer's front flit. Each cycle the port offers VC
//!   allocation one VC whose front flit is a head flit without an output
//!   VC yet (round robin over the VCs, the pointer advancing every cycle,
//!   so a waiting VC is first in line once every V cycles), choosing among
//!   the decoders' answers: the choice and the decoding run side by side
//!   on the router's critical path. The decoder reduces the address (and `node_id` where the key
//!   needs it) to a routing key per dimension: sign of the offset, whether
//!   both directions are minimal (a torus offset of k/2), whether the
//!   wraparound link lies ahead (the dateline classes of the survey §8), and
//!   on a hypercube the direction of the dimension's link. A fixed table
//!   compiled from the routing relation ([`tables::compile`], which proves
//!   at every node, destination and input that the key decides the
//!   relation's answer) maps the key to the permitted output VCs.
//!   With `--table economical` (LAPSES §5.2.1) the decoder reduces the
//!   address to the sign vector of (destination - node id) and drives the
//!   word line of that entry of the router's one programmable table of 3^n
//!   entries (flip-flops: per entry the permitted ports and a VC class,
//!   [`tables::EsContents`]), read by every input port at once; reset
//!   loads the contents [`tables::economical`] derives from the compiled
//!   relation, and `cfg_*` (docs/interface.md) rewrites an entry.
//!   With `--table full` (LAPSES §5) an entry per destination and with
//!   `--table meta` (§5.1.1) an entry per node of the router's cluster
//!   and per other cluster ([`tables::full`], [`tables::meta`]): the glue
//!   compares the head's absolute address (and for the meta table the
//!   cluster coordinates of `node_id`) with each entry's coordinates to
//!   drive its word line; the contents depend on the node, so reset loads
//!   those of `node_id` from a ROM (node id -> contents).
//! - VC allocation (Chien: RA): one [`RoutingArbiter`] matching input
//!   ports to output ports; input port q's candidate slot j is output port
//!   j when the relation permits one of its VCs that no packet holds. The
//!   arbiter's path-selection heuristic (LAPSES §4.1) chooses among the
//!   ports (MAX-CREDIT: the downstream credits summed over the port's VCs;
//!   MIN-MUX: the port's VCs held by packets; LRU, LFU: the port's use),
//!   in dimension order for STATIC-XY (port order is dimension order); the
//!   packet takes the lowest-numbered permitted free VC of its port. An
//!   output VC is held from the head flit's allocation until its tail flit
//!   leaves; under *-channels and Duato it is free again only when all its
//!   credits are back (the downstream queue empty: Duato's theorem assumes
//!   a queue never holds two packets, survey §4.2; see
//!   [`tables::CompiledTable::atomic`]). Input port q competes for output
//!   port j only where some packet arriving on q can leave by j
//!   ([`tables::reach`]). Each output port takes at most one new packet per cycle (Chien
//!   §3: making connections sequentially does not significantly reduce
//!   performance).
//! - Switch allocation and crossbar (Chien: CB): per input port, one VC
//!   that holds an output VC, has a flit and a credit for that output VC
//!   (round robin as above); a second [`RoutingArbiter`] (one candidate per
//!   input, STATIC-XY) gives each output port to one of the requesting
//!   input ports. A P x P [`Crossbar::per_flit_linking`] moves the flits:
//!   the switch is set per flit, so packets on different VCs share an
//!   output port flit by flit. It wires output o to input q only where the
//!   relation can send a packet arriving on q out of o ([`tables::reach`]:
//!   dimension order never turns back nor to a lower dimension, Chien
//!   §5.1), every pair with a programmable table.
//! - VC multiplexing onto the links (Chien: VC): each output VC has a
//!   credit counter for the downstream buffer (D at reset, minus one per
//!   flit sent, plus one per `p<o>_out_credit[v]` pulse), or with on/off
//!   flow control a flip-flop holding the downstream level
//!   `p<o>_out_credit[v]` of the cycle before (see "On/off flow control"
//!   below). The switch
//!   allocator multiplexes the VCs onto the physical channel; there are no
//!   output buffers: a flit goes from its input buffer through the crossbar
//!   to the link.
//! - Header update (Chien: the decoder computes the updated header): here
//!   at each output port, after the crossbar ([`HeaderUpdate`]): the decoder
//!   routes a head flit a cycle before
//!   the flit crosses, and at the output port the hop's dimension and
//!   direction are fixed. With relative addressing the travelled
//!   dimension's offset moves one step toward zero (a torus offset of k/2
//!   that leaves the other way round becomes k/2 - 1 of the other sign; a
//!   hypercube clears the dimension's bit).
//!
//! Cost: buffers P V D W flip-flops; decoders P V tables of at most 7^n
//! keys (3^n on meshes and hypercubes); VC allocation
//! O(P^3) (Chien's O(F^2) per input with F = P), switch allocation O(P^2);
//! crossbar O(P^2 W) (Chien Figure 2: O(P^2)); the V:1 selections per
//! input port O(P V W); the credit check of each input VC selects one of
//! the P V counters' nonzero flags, O((P V)^2) single-bit terms.
//!
//! Latency and rate: a head flit that arrives in cycle t is written into
//! its input buffer at the end of t; in t + 1 it is decoded and allocated
//! an output VC; in t + 2 it crosses the switch and leaves on the link (two
//! cycles from head in to head out, when nothing else competes). Body and
//! tail flits written in cycle t leave in t + 1. Each output port sends one
//! flit per cycle while some input has a flit and a credit for it. The
//! outputs are combinational from flip-flops (input buffers, held VCs,
//! pointers, credits) through the switch allocator, crossbar and header
//! update: no input reaches an output in the same cycle.
//!
//! # Look-ahead routing
//!
//! With `--lookahead` (LAPSES §3.2, [`lookahead`]) a head flit arriving on
//! a link carries the ports the relation permits here (on a torus with a
//! dateline bit per port); the port's VC
//! allocation reads its candidates from that field (the field's VCs from a
//! small table keyed by it) instead of from the address decoder, which only
//! the local input port keeps (its packets have no upstream router). In the
//! same cycle, for every link j a decoder per input port computes the field
//! the head would carry into the router across j (the next router's ports,
//! from the head as it would leave by j and that router's node id); the
//! look-ahead mux ([`LookaheadMux`]) keeps the granted port's and a register
//! per input VC holds it until the head crosses, when it replaces the
//! field. A head leaving by the local port keeps its field. Cost: (P -
//! 1)^2 look-ahead decoders (each with a key -> field table; no decoder
//! for a port's own link) in place of the link ports' (P - 1) V decoders, a
//! P-way mux per input port and a field register (P bits, 2P on a torus)
//! per input VC. Latency is unchanged (two cycles per router): the decoder
//! already shares its cycle with allocation, and look-ahead removes it from
//! that path for the link inputs. Supported for every relation on meshes,
//! hypercubes and tori (the field register holds [`LA_BITS`] bits, a
//! 4-D torus's 2 x 9); not with the economical-storage table.
//!
//! # On/off flow control
//!
//! With `--flow-control on-off` each input VC's buffer raises its level
//! `p<q>_in_credit[c]` while at least [`ON_OFF_SLACK`] = 2 of its D slots
//! are free, and each output VC may send only while the flip-flop `on`
//! holds a high downstream level. The threshold is the round trip of this
//! timing: a level computed in cycle t (from the occupancy at the start of
//! t) is registered by the sender at the end of t and obeyed from t + 1;
//! so when the level falls in cycle t, the flit the sender sent in t
//! (allowed by the level of t - 1, and not in the occupancy the level of t
//! was computed from) still arrives, and while the level is high, the
//! flits of t and t + 1 both may. A level high with two free slots holds
//! both; with one (slack 1) the buffer overflows, which
//! `a_registered_on_level_needs_two_free_slots` (flow_control.rs) shows.
//! The buffer must therefore hold at least 2 flits (with D = 1 the level
//! never rises); the spec refuses shallower buffers. Registering the level
//! keeps every output a function of flip-flops: no input reaches an output
//! in the same cycle, also in a chain of routers. MAX-CREDIT counts the
//! VCs of a port whose level is high.
//!
//! Departure from Chien §5 (Figures 5-8): every algorithm uses this one
//! organization by default (`--datapath unified`). Chien's dimension
//! slices (one 3x3 crossbar per dimension for dimension order, §5.1,
//! Figure 5) are built with `--datapath sliced` ([`sliced`]: a router of
//! n such routers of 1-D networks), and so are the plane slices of
//! planar-adaptive routing on meshes (§5.2, Figure 6; [`planes`]: n-1
//! routers of 2-D meshes); *-channels' crossbar with a port per virtual
//! channel (§5.4, Figure 8) is built with `--datapath vc-ports` for
//! *-channels and Duato ([`vcports`]: this router over P V ports of one VC
//! each, and a VC controller per link).
//!
//! # Supported configurations
//!
//! [`supported`] says which: every algorithm on every topology it is
//! defined on (`Algorithm::supports`), networks of at most
//! [`MAX_ROUTER_NODES`] nodes, relative or absolute addressing (the
//! address fields of `RouterSpec::address_field_bits` must fit the flit),
//! credit or on/off flow control (D >= 2), look-ahead (on tori up to 8
//! ports), no routing table, the economical-storage table (meshes and
//! hypercubes), the full table (at most [`tables::MAX_FULL_ENTRIES`]
//! nodes) or the meta table (at most [`tables::MAX_META_NODES`] nodes,
//! where the deadlock checker proves the relation it restricts), W = 16,
//! 32 or 64,
//! P <= 16, V <= 16, D <= 16. [`matrix`] lists the configurations the
//! tests build. Everything else returns `Error::InvalidSpec` naming what
//! is not supported yet.
//!
//! `node_id` (docs/interface.md) is read where the routing key needs it:
//! with absolute addressing, on tori (the dateline: is the wraparound link
//! ahead?) and on hypercubes under negative-first (the direction of each
//! dimension's link); [`tables::compile`] finds which.
//!
//! # Why the glue is written twice
//!
//! rust-hdl's `#[hdl_gen]` writes wrong Verilog for a Vec field of an
//! element of a Vec of sub-blocks (`self.dec[i].cand[o]` becomes
//! `dec$0$cand[o]`, with no error). The router's glue therefore has a plain
//! Rust `update` (the simulation model) and a hand-written `hdl` emitting
//! the same logic as Verilog text; the co-simulation test holds them equal.
pub mod lookahead;
pub mod planes;
pub mod sliced;
pub mod tables;
pub mod vcports;

use std::fmt::Write as _;

use rust_hdl::prelude::*;

use crate::algo::{Knobs, Network, Relation};
use crate::blocks::address_decoder::{DecoderShape, HeaderUpdate};
use crate::blocks::cosim::{each, InputSignal};
use crate::blocks::flow_control::{mask_for, COUNT_BITS, MAX_DEPTH};
use crate::blocks::vc_controller::VcController;
use crate::blocks::{
    rename_top, signals, AddressDecoder, Crossbar, FlowControlUnit, HwBlock, LookaheadMux,
    RoutingArbiter,
};
use crate::error::{Error, Result};
use crate::spec::{FlowControl, PathSelection, RouterDatapath, RouterSpec, TableStorage, Topology};
use lookahead::{LookaheadTable, NextNode};
use tables::CompiledTable;

/// Bits of a VC number inside the router (V up to 16).
pub const VC_BITS: usize = 4;
// The VC controllers put their VC numbers on the router's output ports as
// they are.
const _: () = assert!(VC_BITS == crate::blocks::vc_controller::VC_BITS);
/// Bits of a port number inside the router (P up to 16).
pub const PORT_BITS: usize = crate::blocks::arbiter::PORT_BITS;

type Count = Bits<COUNT_BITS>;
type VcId = Bits<VC_BITS>;
type PortId = Bits<PORT_BITS>;
/// Bits of a VC class register of the economical-storage table.
pub const CLASS_BITS: usize = 4;
type ClassId = Bits<CLASS_BITS>;
type EsAddr = Bits<{ crate::blocks::es_table::ADDR_BITS }>;
/// Bits of a look-ahead field register: P bits, 2P on a torus, whose
/// largest (4 dimensions, P = 9) takes 18.
pub const LA_BITS: usize = 18;
type LaField = Bits<LA_BITS>;

/// Flit widths the router is built for.
pub const ROUTER_WIDTHS: [u32; 3] = [16, 32, 64];

/// On/off flow control: the free slots an input VC needs for its level to
/// be high, the router's round trip (module documentation).
pub const ON_OFF_SLACK: usize = crate::spec::ON_OFF_ROUND_TRIP as usize;

/// Largest network whose relation the router compiles (it asks the
/// relation at every node for every destination).
pub const MAX_ROUTER_NODES: u64 = 4096;

/// Whether routergen can build a router for `spec`; the error names what is
/// not supported yet.
pub fn supported(spec: &RouterSpec) -> Result<()> {
    compile(spec).map(|_| ())
}

fn unsupported(what: String) -> Error {
    Error::InvalidSpec(format!(
        "router generation does not support {what} yet (supported: meshes, tori and \
         hypercubes of at most {MAX_ROUTER_NODES} nodes with every algorithm, relative or \
         absolute addressing, credit or on/off flow control, look-ahead (on tori up to 8 \
         ports), no routing table, an economical-storage one, a full one of at most \
         {} entries or a meta one, flit \
         widths 16, 32 and 64, at most 16 ports, 16 virtual channels and {MAX_DEPTH}-flit \
         buffers)",
        tables::MAX_FULL_ENTRIES
    ))
}

/// The relation of `spec`, compiled for the router's address decoders.
pub fn compile(spec: &RouterSpec) -> Result<CompiledTable> {
    compile_with(spec, Knobs::default())
}

/// The relation of `spec` compiled with the torus dateline virtual channels
/// removed (every VC of a ring in one class), so that dimension-order
/// routing on a torus can deadlock. Only for tests that must show a
/// deadlock being caught; no command-line option reaches it.
#[doc(hidden)]
pub fn compile_deadlock_prone_without_dateline_vcs(spec: &RouterSpec) -> Result<CompiledTable> {
    if spec.datapath == RouterDatapath::Sliced {
        // The slices compile their own relations, with the datelines.
        return Err(unsupported(
            "the dateline-free test relation with --datapath sliced".into(),
        ));
    }
    compile_with(
        spec,
        Knobs {
            dateline: false,
            ..Knobs::default()
        },
    )
}

fn compile_with(spec: &RouterSpec, knobs: Knobs) -> Result<CompiledTable> {
    if spec.flow_control == FlowControl::OnOff && (spec.buffer_depth as usize) < ON_OFF_SLACK {
        return Err(Error::InvalidSpec(format!(
            "on-off flow control needs buffers of at least {ON_OFF_SLACK} flits per virtual \
             channel (the router's round trip: a level is obeyed the cycle after it is \
             computed, so two flits can arrive beyond the occupancy it saw); got --depth {}",
            spec.buffer_depth
        )));
    }
    if !ROUTER_WIDTHS.contains(&spec.flit_width) {
        return Err(unsupported(format!("flit width {}", spec.flit_width)));
    }
    if !(1..=MAX_DEPTH as u32).contains(&spec.buffer_depth) {
        return Err(unsupported(format!("buffer depth {}", spec.buffer_depth)));
    }
    if spec.vcs as usize > 1 << VC_BITS {
        return Err(unsupported(format!("{} virtual channels", spec.vcs)));
    }
    let p = spec.physical_ports();
    if p as usize > 1 << PORT_BITS {
        return Err(unsupported(format!(
            "{p} ports (a {}-dimensional {})",
            spec.dims, spec.topology
        )));
    }
    let field = spec.address_field_bits();
    if spec.header_bits() > spec.flit_width {
        return Err(Error::InvalidSpec(format!(
            "the head flit's address does not fit a {}-bit flit: {} addressing on a \
             {}-ary {}-dimensional {} takes {field} bits per dimension, {} in all{}; use a \
             wider --flit-width, a smaller --radix or fewer --dims",
            spec.flit_width,
            spec.addressing,
            spec.radix,
            spec.dims,
            spec.topology,
            spec.header_bits(),
            if spec.lookahead {
                " with the look-ahead field"
            } else {
                ""
            }
        )));
    }
    if spec.nodes() > MAX_ROUTER_NODES {
        return Err(unsupported(format!("a network of {} nodes", spec.nodes())));
    }
    let net = Network::new(spec.topology, spec.dims, spec.radix)?;
    let rel = Relation::with_knobs(spec.algorithm, net, spec.vcs, knobs)?;
    if spec.flow_control == FlowControl::OnOff && rel.has_escape() {
        // Atomic VC allocation (tables::CompiledTable::atomic) needs to
        // know that the downstream queue is empty; a level does not say.
        return Err(Error::InvalidSpec(format!(
            "on-off flow control with {}: its escape channels need atomic VC allocation \
             (an output VC takes a new packet only once the downstream queue is empty, the \
             assumption of Duato's theorem), which credits tell and on/off levels do not; \
             use --flow-control credit",
            spec.algorithm
        )));
    }
    if spec.datapath == RouterDatapath::Sliced {
        // Each slice's decoder holds its own dimension's or plane's relation.
        sliced::compile_slices(spec)?;
    }
    let mut table = tables::compile(&rel, spec.addressing)?;
    match spec.table {
        TableStorage::Economical => table.es = Some(tables::economical(&table)?),
        TableStorage::Full => table.es = Some(tables::full(&rel, &table)?),
        TableStorage::Meta => table.es = Some(tables::meta(&rel, &table)?),
        _ => {}
    }
    if spec.lookahead {
        table.la = Some(lookahead::for_table(&rel, &table)?);
    }
    if spec.datapath == RouterDatapath::VcPorts {
        vcports::check(&table)?;
    }
    if table.shape.field_bits != field as usize {
        return Err(Error::InvalidSpec(format!(
            "internal: the decoder reads {}-bit address fields, the spec has {field}",
            table.shape.field_bits
        )));
    }
    Ok(table)
}

/// Every configuration the router is built and checked for: every
/// algorithm on every topology it supports, n = 2 and 3 (and 4 on meshes
/// and hypercubes), V = the algorithm's minimum and one more, relative and
/// absolute addressing, radix 4 on meshes and tori, flit widths 16, 32 and
/// 64 taken in turn (124 configurations); dimension order sliced
/// (`--datapath sliced`) on a 3-D torus and a 4-cube; and a crossbar port
/// per VC (`--datapath vc-ports`) for *-channels on a 2-D torus and Duato
/// on a 3-D mesh and a 3-cube (129 in all).
pub fn matrix() -> Vec<RouterSpec> {
    use crate::spec::names::Named;
    use crate::spec::{Addressing, Algorithm, SpecInput};
    let mut out = Vec::new();
    for algorithm in Algorithm::all() {
        for topology in Topology::all() {
            let dims: &[u32] = match topology {
                Topology::Torus => &[2, 3],
                _ => &[2, 3, 4],
            };
            for &n in dims {
                if algorithm.supports(topology, n).is_err() {
                    continue;
                }
                let min = algorithm.min_vcs(topology, n);
                for vcs in [min, min + 1] {
                    for addressing in Addressing::all() {
                        let w = ROUTER_WIDTHS[out.len() % ROUTER_WIDTHS.len()];
                        let spec = SpecInput {
                            topology: Some(topology),
                            dims: Some(n as i64),
                            radix: Some(if topology == Topology::Hypercube {
                                2
                            } else {
                                4
                            }),
                            algorithm: Some(algorithm),
                            vcs: Some(vcs as i64),
                            flit_width: Some(w as i64),
                            addressing: Some(addressing),
                            ..SpecInput::default()
                        }
                        .resolve()
                        .expect("matrix specs are valid")
                        .spec;
                        out.push(spec);
                    }
                }
            }
        }
    }
    out.extend(sliced::samples());
    out.extend(vcports::samples());
    out
}

/// A whole router (see the module documentation).
///
/// Ports (P physical ports, V VCs, k = p * V + v): `node_id` (W),
/// `in_data$p` (W), `in_valid$p`, `in_head$p`, `in_tail$p`, `in_vc$p` (4),
/// `out_credit$k` in; `in_credit$k`, `out_data$p` (W), `out_valid$p`,
/// `out_head$p`, `out_tail$p`, `out_vc$p` (4) out.
#[derive(LogicBlock)]
pub struct Router<const W: usize> {
    pub clock: Signal<In, Clock>,
    pub rst: Signal<In, Bit>,
    /// The router's coordinates (docs/interface.md), read where the
    /// decoders' key needs them.
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
    /// Economical-storage table programming (docs/interface.md): write
    /// entry `cfg_addr` with ports `cfg_mask` (P bits with a table, none
    /// without) and VC class `cfg_class`. Unused without a table.
    pub cfg_we: Signal<In, Bit>,
    pub cfg_addr: Signal<In, EsAddr>,
    pub cfg_mask: Vec<Signal<In, Bit>>,
    pub cfg_class: Signal<In, ClassId>,
    /// The table (LAPSES §5.2.1): per entry e, port o: `tmask[e P + o]`;
    /// per entry its VC class. Empty without a table.
    tmask: Vec<DFF<Bit>>,
    tclass: Vec<DFF<ClassId>>,
    /// Input buffers, one per input VC i = q V + c.
    fcu: Vec<FlowControlUnit<W>>,
    /// One address decoder per input VC i = q V + c, each reading its own
    /// buffer's front flit, so the round-robin choice of the waiting VC
    /// selects among decoded answers instead of preceding the decoder (VC
    /// allocation is the router's critical path); with look-ahead only the
    /// local port's (the others read their hop from the head flit).
    dec: Vec<AddressDecoder<W>>,
    /// Look-ahead (LAPSES §3.2): per input port q and link output port j
    /// (but q's own link), a decoder of the field the head leaves by j
    /// with: the next router's ports; index `_la_at[q P + j]`.
    ladec: Vec<AddressDecoder<W>>,
    /// Per input port: the mux that keeps the granted port's field.
    lamux: Vec<LookaheadMux<W>>,
    /// Per input VC: the look-ahead field its head flit leaves with.
    rla: Vec<DFF<LaField>>,
    /// VC allocation: input ports to output ports (Chien's routing arbiter).
    valloc: RoutingArbiter,
    /// Switch allocation: input ports to output ports, per flit.
    salloc: RoutingArbiter,
    xbar: Crossbar<W>,
    /// Per input VC: it holds an output VC, and which (port, VC).
    routed: Vec<DFF<Bit>>,
    rport: Vec<DFF<PortId>>,
    rvc: Vec<DFF<VcId>>,
    /// Per output VC k = o V + v: held by a packet; downstream credits
    /// (credit flow control) or the downstream level of the cycle before
    /// (on/off); the other is empty.
    busy: Vec<DFF<Bit>>,
    credits: Vec<DFF<Count>>,
    on: Vec<DFF<Bit>>,
    /// Per input VC: it holds an output VC and that VC may send (a credit,
    /// or the on level), kept in a flip-flop of the input VC so that
    /// switch allocation, the router's critical path, starts from a
    /// flip-flop instead of a selection among every output VC's flags.
    /// Exact: only its holder sends on an output VC, so the input VC's own
    /// send is the only decrement.
    cok: Vec<DFF<Bit>>,
    /// Per input port: round-robin pointers of the VC chosen for routing
    /// and for the switch.
    rptr: Vec<DFF<VcId>>,
    sptr: Vec<DFF<VcId>>,
    /// With `--datapath sliced`: the dimension slices ([`sliced`]), each a
    /// router of its own; the fields above are then empty or unused.
    slices: Vec<Router<W>>,
    /// Plane slices ([`planes`]): per link two planes share, Chien's VC
    /// controller putting their VCs on it; and where each port is wired.
    vcc: Vec<VcController<W>>,
    _planes: Option<planes::Wiring>,
    /// A crossbar port per VC ([`vcports`]): the one slice is the core.
    _vcports: bool,
    _p: usize,
    _v: usize,
    _depth: usize,
    _onoff: bool,
    _table: CompiledTable,
    _es: Option<tables::EsContents>,
    _updates: Vec<HeaderUpdate>,
    _la: Option<LookaheadTable>,
    _la_at: Vec<Option<usize>>,
    /// The crossbar's wired pairs (o P + i, `CompiledTable::crossbar_links`).
    _links: Vec<bool>,
    /// Per output port j > 0: the node id of the router across it.
    _next: Vec<NextNode>,
    /// Bits of the address fields: the look-ahead field starts here.
    _ab: usize,
    /// Bits of the look-ahead field (`spec::lookahead_field_bits`; 0 without).
    _fb: usize,
}

impl<const W: usize> Router<W> {
    /// The router of `spec`, or why it cannot be built yet.
    pub fn new(spec: &RouterSpec) -> Result<Self> {
        Self::with_table(spec, compile(spec)?)
    }

    /// The router of `spec` with its relation already compiled.
    pub fn with_table(spec: &RouterSpec, table: CompiledTable) -> Result<Self> {
        if spec.flit_width as usize != W {
            return Err(unsupported(format!(
                "flit width {} in a {W}-bit router",
                spec.flit_width
            )));
        }
        match spec.datapath {
            RouterDatapath::Sliced => return sliced::build(spec, table),
            RouterDatapath::VcPorts => return vcports::build(spec, table),
            RouterDatapath::Unified => {}
        }
        let p = table.ports();
        let v = table.vcs();
        let pv = p * v;
        let d = spec.buffer_depth as usize;
        let onoff = spec.flow_control == FlowControl::OnOff;
        if onoff && d < ON_OFF_SLACK {
            return Err(unsupported(format!(
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
        // Look-ahead decoders: every input port, every link but its own.
        let mut la_at = vec![None; p * p];
        let mut nla = 0;
        if la.is_some() {
            for q in 0..p {
                for j in (1..p).filter(|&j| j != q) {
                    la_at[q * p + j] = Some(nla);
                    nla += 1;
                }
            }
        }
        let fb = la.as_ref().map_or(0, |la| la.field_bits);
        let field_shape = la.as_ref().map(|la| lookahead::field_shape(&table, la));
        let next_rows = la.as_ref().map_or(Vec::new(), |la| la.next.clone());
        let links = table.crossbar_links();
        let decoder = || match &es {
            None => AddressDecoder::new_unchecked(table.shape.clone(), &table.rows),
            Some(t) => AddressDecoder::new_unchecked(
                DecoderShape {
                    ports: entries,
                    vcs: 1,
                    ..table.shape.clone()
                },
                &t.word_lines(),
            ),
        };
        Ok(Router {
            cfg_mask: signals(if es.is_some() { p } else { 0 }),
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
            ladec: (0..nla)
                .map(|_| {
                    AddressDecoder::new_unchecked(
                        field_shape.clone().expect("look-ahead"),
                        &next_rows,
                    )
                })
                .collect(),
            lamux: (0..if la.is_some() { p } else { 0 })
                .map(|_| LookaheadMux::new_unchecked(fb, p))
                .collect(),
            rla: dffs(if la.is_some() { pv } else { 0 }),
            valloc: RoutingArbiter::new_unchecked(p, p, spec.path_selection),
            salloc: RoutingArbiter::new_unchecked(p, 1, PathSelection::StaticXy),
            xbar: Crossbar::per_flit_linking_unchecked(p, &links),
            routed: dffs(pv),
            rport: dffs(pv),
            rvc: dffs(pv),
            busy: dffs(pv),
            credits: dffs(if onoff { 0 } else { pv }),
            on: dffs(if onoff { pv } else { 0 }),
            cok: dffs(pv),
            rptr: dffs(p),
            sptr: dffs(p),
            // A VC-port core's port o is on link o / per_link.
            _updates: (0..p)
                .map(|o| HeaderUpdate::new(&table.shape, o / table.per_link))
                .collect(),
            _next: if la.is_some() {
                (1..p).map(|j| NextNode::new(&table.shape, j)).collect()
            } else {
                Vec::new()
            },
            _ab: table.shape.dims * table.shape.field_bits,
            _fb: fb,
            _la: la,
            _la_at: la_at,
            _links: links,
            _es: es,
            ..Self::shell(p, v, spec, table)
        })
    }

    /// A router with `p` ports and `v` VCs, its external ports only: no
    /// buffers, decoders or tables, stand-in allocators and crossbar. The
    /// sliced router is one holding its slices; [`Router::with_table`] fills
    /// in the unified router's blocks over it.
    pub(super) fn shell(p: usize, v: usize, spec: &RouterSpec, table: CompiledTable) -> Self {
        let pv = p * v;
        Router {
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
            cfg_mask: Vec::new(),
            cfg_class: Signal::default(),
            tmask: Vec::new(),
            tclass: Vec::new(),
            fcu: Vec::new(),
            dec: Vec::new(),
            ladec: Vec::new(),
            lamux: Vec::new(),
            rla: Vec::new(),
            // The smallest stand-ins, their inputs tied low (synthesis removes
            // them) where the router has allocators of its own elsewhere.
            valloc: RoutingArbiter::new_unchecked(2, 1, PathSelection::StaticXy),
            salloc: RoutingArbiter::new_unchecked(2, 1, PathSelection::StaticXy),
            xbar: Crossbar::per_flit_unchecked(1),
            routed: Vec::new(),
            rport: Vec::new(),
            rvc: Vec::new(),
            busy: Vec::new(),
            credits: Vec::new(),
            on: Vec::new(),
            cok: Vec::new(),
            rptr: dffs(0),
            sptr: dffs(0),
            slices: Vec::new(),
            vcc: Vec::new(),
            _planes: None,
            _vcports: false,
            _p: p,
            _v: v,
            _depth: spec.buffer_depth as usize,
            _onoff: spec.flow_control == FlowControl::OnOff,
            _es: None,
            _updates: Vec::new(),
            _la: None,
            _la_at: Vec::new(),
            _links: Vec::new(),
            _next: Vec::new(),
            _ab: 0,
            _fb: 0,
            _table: table,
        }
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

/// `n` flip-flops.
fn dffs<T: Synth>(n: usize) -> Vec<DFF<T>> {
    (0..n).map(|_| DFF::default()).collect()
}

/// Marks the clock and input of each flip-flop of `regs` driven (by the
/// router's `update`).
fn connect_dffs<T: Synth>(regs: &mut [DFF<T>]) {
    for r in regs {
        r.clock.connect();
        r.d.connect();
    }
}

/// Verilog for the signal `name(i)` of the input VC i = q V + c that input
/// port q's routing round robin chose (`rsel$q`, VC 0 when none waits).
fn by_rsel(q: usize, v: usize, name: impl Fn(usize) -> String) -> String {
    let vb = VC_BITS;
    (1..v).rev().fold(name(q * v), |rest, c| {
        format!("((rsel${q} == {vb}'d{c}) ? {} : {rest})", name(q * v + c))
    })
}

/// The first VC (of `v`) at or after `ptr`, then from 0, whose flag is set:
/// a rotating-priority choice.
fn round_robin(ptr: usize, flags: &[bool]) -> Option<usize> {
    (0..2)
        .flat_map(|pass| (0..flags.len()).map(move |c| (pass, c)))
        .find(|&(pass, c)| flags[c] && ((pass == 0) == (c >= ptr)))
        .map(|(_, c)| c)
}

impl<const W: usize> Logic for Router<W> {
    // Index loops on purpose: the same indices as the Verilog of
    // `glue_verilog`, which the co-simulation holds equal to this.
    #[allow(clippy::needless_range_loop)]
    fn update(&mut self) {
        if !self.slices.is_empty() {
            return self.update_sliced();
        }
        let (p, v) = (self._p, self._v);
        let pv = p * v;
        let clk = self.clock.val();
        let rst = self.rst.val();
        for i in 0..pv {
            self.fcu[i].clock.next = clk;
            self.fcu[i].rst.next = rst;
            self.routed[i].clock.next = clk;
            self.rport[i].clock.next = clk;
            self.rvc[i].clock.next = clk;
            self.busy[i].clock.next = clk;
        }
        for r in self.credits.iter_mut() {
            r.clock.next = clk;
        }
        for r in self.on.iter_mut().chain(self.cok.iter_mut()) {
            r.clock.next = clk;
        }
        for q in 0..p {
            self.rptr[q].clock.next = clk;
            self.sptr[q].clock.next = clk;
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

        // Input side: the flit goes to the buffer of its VC.
        for q in 0..p {
            for c in 0..v {
                let i = q * v + c;
                self.fcu[i].in_data.next = self.in_data[q].val();
                self.fcu[i].in_valid.next =
                    self.in_valid[q].val() && self.in_vc[q].val().index() == c;
                self.fcu[i].in_head.next = self.in_head[q].val();
                self.fcu[i].in_tail.next = self.in_tail[q].val();
                self.fcu[i].credit_in.next = false;
                self.fcu[i].send_req.next = false;
                self.in_credit[i].next = self.fcu[i].credit_out.val();
            }
        }

        // Routing: per input port, one VC with a head flit waiting for an
        // output VC goes through the port's decoder.
        let mut rsel = vec![None; p];
        let mut shown = vec![Bits::<W>::default(); p];
        for q in 0..p {
            let waiting: Vec<bool> = (0..v)
                .map(|c| {
                    let i = q * v + c;
                    self.fcu[i].out_valid.val()
                        && self.fcu[i].out_head.val()
                        && !self.routed[i].q.val()
                })
                .collect();
            rsel[q] = round_robin(self.rptr[q].q.val().index(), &waiting);
            shown[q] = self.fcu[q * v + rsel[q].unwrap_or(0)].out_data.val();
            if q * v < self.dec.len() {
                for c in 0..v {
                    let i = q * v + c;
                    self.dec[i].node_id.next = self.node_id.val();
                    self.dec[i].in_data.next = self.fcu[i].out_data.val();
                    self.dec[i].in_valid.next = waiting[c];
                    self.dec[i].in_head.next = waiting[c];
                }
            }
            // Look-ahead: the next router's field along every link j, from
            // the head as it would leave by j, at the neighbour's node id.
            for j in 1..p {
                if let Some(m) = self._la_at[q * p + j] {
                    let node = self._next[j - 1].apply(self.node_id.val().to_u64(), W);
                    let data = self._updates[j].apply(shown[q].to_u64(), W);
                    self.ladec[m].node_id.next = Bits::<W>::from(node);
                    self.ladec[m].in_data.next = Bits::<W>::from(data);
                    self.ladec[m].in_valid.next = rsel[q].is_some();
                    self.ladec[m].in_head.next = rsel[q].is_some();
                }
            }
        }
        // The look-ahead field each port's waiting head flit carries.
        let fmask = (1u64 << self._fb) - 1;
        let field: Vec<u64> = shown
            .iter()
            .map(|d| (d.to_u64() >> self._ab) & fmask)
            .collect();

        // The permitted output VCs of each port's waiting head flit: the
        // decoder's, or the table entry whose word line it drives, or with
        // look-ahead (but on the local port) the VCs of the field it
        // carries.
        let perm: Vec<Vec<bool>> = (0..p)
            .map(|q| {
                (0..pv)
                    .map(|k| match (&self._es, &self._la) {
                        (None, Some(la)) if q > 0 => {
                            rsel[q].is_some() && la.lookup(field[q]).is_some_and(|r| r.permits(k))
                        }
                        (None, _) => self.dec[q * v + rsel[q].unwrap_or(0)].cand[k].val(),
                        (Some(es), _) => (0..es.entries.len()).any(|e| {
                            (if es.kind == tables::TableKind::Economical {
                                self.dec[q * v + rsel[q].unwrap_or(0)].cand[e].val()
                            } else {
                                rsel[q].is_some()
                                    && es.selects(e, shown[q].to_u64(), self.node_id.val().to_u64())
                            }) && self.tmask[e * p + k / v].q.val()
                                && es.class_permits(self.tclass[e].q.val().index(), k / v, k % v)
                        }),
                    })
                    .collect()
            })
            .collect();

        // VC allocation (Chien's routing arbiter over ports, with the
        // path-selection heuristic): candidate slot j of input port q is
        // output port j when it has a permitted VC that is free.
        let busy: Vec<bool> = (0..pv).map(|k| self.busy[k].q.val()).collect();
        // What each output VC may send: its credits, or its level (0 or 1).
        let credit: Vec<u64> = (0..pv)
            .map(|k| {
                if self._onoff {
                    u64::from(self.on[k].q.val())
                } else {
                    self.credits[k].q.val().to_u64()
                }
            })
            .collect();
        // An output VC takes a new packet when no packet holds it and, with
        // atomic allocation (credit flow control only), its downstream
        // queue is empty.
        let free: Vec<bool> = (0..pv)
            .map(|k| !busy[k] && (!self._table.atomic || credit[k] == self._depth as u64))
            .collect();
        for o in 0..p {
            self.valloc.out_free[o].next = true;
            let sum: u64 = (0..v).map(|c| credit[o * v + c]).sum();
            self.valloc.out_credits[o].next = Bits::<8>::from(sum.min(255));
            let held = (0..v).filter(|&c| busy[o * v + c]).count();
            self.valloc.out_mux[o].next = Bits::<8>::from(held as u64);
        }
        for q in 0..p {
            self.valloc.req[q].next = rsel[q].is_some();
            for j in 0..p {
                let open =
                    self._links[j * p + q] && (0..v).any(|c| perm[q][j * v + c] && free[j * v + c]);
                self.valloc.cand[q * p + j].next = PortId::from(j as u64);
                self.valloc.cand_valid[q * p + j].next = open;
            }
        }
        // Per input port: the output VC granted (lowest free permitted VC
        // of the granted port).
        let mut alloc: Vec<Option<(usize, usize)>> = vec![None; p];
        for q in 0..p {
            for j in 0..p {
                if !self.valloc.grant[q * p + j].val() {
                    continue;
                }
                for c in (0..v).rev() {
                    if perm[q][j * v + c] && free[j * v + c] {
                        alloc[q] = Some((j, c));
                    }
                }
            }
        }
        // Look-ahead mux (LAPSES Figure 4b): the granted port's next-router
        // field; a packet that leaves by the local port keeps its field.
        for q in 0..self.lamux.len() {
            self.lamux[q].in_hdr.next = Bits::<W>::default();
            for j in 0..p {
                self.lamux[q].sel[j].next = self.valloc.grant[q * p + j].val();
                for b in 0..self._fb {
                    self.lamux[q].next_mask[j * self._fb + b].next = match self._la_at[q * p + j] {
                        Some(m) => self.ladec[m].cand[b].val(),
                        None => j == 0 && (field[q] >> b) & 1 == 1,
                    };
                }
            }
        }

        // Switch allocation: per input port one VC that holds an output VC
        // with a credit and has a flit; per output port one input port.
        let mut ssel = vec![None; p];
        let mut sroute = vec![(0usize, 0usize); p];
        for q in 0..p {
            let ready: Vec<bool> = (0..v)
                .map(|c| {
                    let i = q * v + c;
                    self.fcu[i].out_valid.val() && self.cok[i].q.val()
                })
                .collect();
            ssel[q] = round_robin(self.sptr[q].q.val().index(), &ready);
            let i = q * v + ssel[q].unwrap_or(0);
            sroute[q] = (self.rport[i].q.val().index(), self.rvc[i].q.val().index());
            self.salloc.req[q].next = ssel[q].is_some();
            self.salloc.cand[q].next = self.rport[i].q.val();
            self.salloc.cand_valid[q].next = true;
        }
        for o in 0..p {
            self.salloc.out_free[o].next = true;
            self.salloc.out_credits[o].next = Bits::<8>::from(0u64);
            self.salloc.out_mux[o].next = Bits::<8>::from(0u64);
        }
        for m in 0..p * p {
            self.xbar.grant[m].next = self.salloc.grant_out[m].val();
        }
        for q in 0..p {
            let go = self.salloc.grant[q].val();
            let i = q * v + ssel[q].unwrap_or(0);
            // A head flit crosses with the look-ahead field chosen for it
            // and the header of the port it holds (the update made before
            // the crossbar, from the registered port, so that it is off the
            // path from switch allocation to the output).
            self.xbar.in_data[q].next = if self.fcu[i].out_head.val() {
                let mut data = self.fcu[i].out_data.val().to_u64();
                if self._la.is_some() {
                    let lamask = fmask << self._ab;
                    let la = self.rla[i].q.val().to_u64() << self._ab;
                    data = (data & !lamask) | (la & lamask);
                }
                match self._updates.get(sroute[q].0) {
                    Some(u) => Bits::<W>::from(u.apply(data, W)),
                    None => Bits::<W>::from(data),
                }
            } else {
                self.fcu[i].out_data.val()
            };
            self.xbar.in_valid[q].next = go;
            self.xbar.in_head[q].next = self.fcu[i].out_head.val();
            self.xbar.in_tail[q].next = self.fcu[i].out_tail.val();
            for c in 0..v {
                self.fcu[q * v + c].out_ready.next = go && ssel[q] == Some(c);
            }
        }

        // Output side: the flits as they cross, the output VC.
        let mut out_vc = vec![0usize; p];
        for o in 0..p {
            self.out_data[o].next = self.xbar.out_data[o].val();
            self.out_valid[o].next = self.xbar.out_valid[o].val();
            self.out_head[o].next = self.xbar.out_head[o].val();
            self.out_tail[o].next = self.xbar.out_tail[o].val();
            for q in 0..p {
                if self.salloc.grant_out[o * p + q].val() {
                    out_vc[o] |= sroute[q].1;
                }
            }
            self.out_vc[o].next = VcId::from(out_vc[o] as u64);
        }

        // State.
        // Output VC (o, c) may send in the next cycle: with a credit flow,
        // it has a credit left after `sent` flits leave now (a returning
        // credit leaves one either way); on/off, the level now arriving.
        // Ports and VCs out of range: never.
        let may_send = |o: usize, c: usize, sent: bool| {
            let k = o * v + c;
            o < p
                && c < v
                && (self.out_credit[k].val()
                    || (!self._onoff && self.credits[k].q.val().to_u64() > u64::from(sent)))
        };
        for q in 0..p {
            for c in 0..v {
                let i = q * v + c;
                let granted = rsel[q] == Some(c) && alloc[q].is_some();
                let leaves = self.fcu[i].out_ready.val() && self.fcu[i].out_tail.val();
                // A newly held output VC was free, so nothing is sent on it
                // now; a held one sends only this input VC's flits.
                let (o, vc) = alloc[q].unwrap_or((0, 0));
                let (ho, hvc) = (self.rport[i].q.val().index(), self.rvc[i].q.val().index());
                self.cok[i].d.next = !rst
                    && if granted {
                        may_send(o, vc, false)
                    } else {
                        !leaves
                            && self.routed[i].q.val()
                            && may_send(ho, hvc, self.fcu[i].out_ready.val())
                    };
                self.routed[i].d.next = if rst {
                    false
                } else if granted {
                    true
                } else if leaves {
                    false
                } else {
                    self.routed[i].q.val()
                };
                self.rport[i].d.next = if rst {
                    PortId::from(0u64)
                } else if granted {
                    PortId::from(o as u64)
                } else {
                    self.rport[i].q.val()
                };
                self.rvc[i].d.next = if rst {
                    VcId::from(0u64)
                } else if granted {
                    VcId::from(vc as u64)
                } else {
                    self.rvc[i].q.val()
                };
                if self._la.is_some() {
                    let chosen = self.lamux[q].out_hdr.val().to_u64() & ((1 << LA_BITS) - 1);
                    self.rla[i].d.next = if rst {
                        LaField::from(0u64)
                    } else if granted {
                        LaField::from(chosen)
                    } else {
                        self.rla[i].q.val()
                    };
                }
            }
            let step = |x: VcId| {
                if rst || x.index() + 1 >= v {
                    VcId::from(0u64)
                } else {
                    x + VcId::from(1u64)
                }
            };
            self.rptr[q].d.next = step(self.rptr[q].q.val());
            self.sptr[q].d.next = step(self.sptr[q].q.val());
        }
        if let Some(es) = &self._es {
            // Table programming; reset loads the relation's contents (of
            // the router's node_id for the full and meta tables).
            for (e, init) in es
                .reset_entries(self.node_id.val().to_u64())
                .iter()
                .enumerate()
            {
                let write = self.cfg_we.val() && self.cfg_addr.val().index() == e;
                self.tclass[e].d.next = if rst {
                    ClassId::from(u64::from(init.class))
                } else if write {
                    self.cfg_class.val()
                } else {
                    self.tclass[e].q.val()
                };
                for o in 0..p {
                    self.tmask[e * p + o].d.next = if rst {
                        (init.mask >> o) & 1 == 1
                    } else if write {
                        self.cfg_mask[o].val()
                    } else {
                        self.tmask[e * p + o].q.val()
                    };
                }
            }
        }
        for o in 0..p {
            for c in 0..v {
                let k = o * v + c;
                let sent = self.xbar.out_valid[o].val() && out_vc[o] == c;
                let taken = alloc.contains(&Some((o, c)));
                self.busy[k].d.next = if rst {
                    false
                } else if taken {
                    true
                } else if sent && self.xbar.out_tail[o].val() {
                    false
                } else {
                    busy[k]
                };
                if self._onoff {
                    self.on[k].d.next = !rst && self.out_credit[k].val();
                    continue;
                }
                let mut next = self.credits[k].q.val();
                if sent {
                    next = next - Count::from(1u64);
                }
                // A pulse for the flit sent in this very cycle (a receiver
                // that frees the slot at once) counts too: the count stays
                // exact and never passes D (docs/interface.md, credit mode).
                if self.out_credit[k].val() && (credit[k] != self._depth as u64 || sent) {
                    next = next + Count::from(1u64);
                }
                if rst {
                    next = Count::from(self._depth as u64);
                }
                // The count is 0 to D: the bits above stay constant and
                // synthesis drops them.
                let next = next & Count::from(mask_for(self._depth) as u64);
                self.credits[k].d.next = next;
            }
        }
    }

    fn connect(&mut self) {
        if !self.slices.is_empty() {
            return self.connect_sliced();
        }
        let (p, v) = (self._p, self._v);
        let pv = p * v;
        for i in 0..pv {
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
            self.in_credit[i].connect();
            for r in [&mut self.routed[i], &mut self.busy[i]] {
                r.clock.connect();
                r.d.connect();
            }
            self.rport[i].clock.connect();
            self.rport[i].d.connect();
            self.rvc[i].clock.connect();
            self.rvc[i].d.connect();
        }
        connect_dffs(&mut self.credits);
        connect_dffs(&mut self.cok);
        connect_dffs(&mut self.on);
        connect_dffs(&mut self.rla);
        for d in self.dec.iter_mut().chain(self.ladec.iter_mut()) {
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
            for r in [&mut self.rptr[q], &mut self.sptr[q]] {
                r.clock.connect();
                r.d.connect();
            }
            for a in [&mut self.valloc, &mut self.salloc] {
                a.req[q].connect();
                a.out_free[q].connect();
                a.out_credits[q].connect();
                a.out_mux[q].connect();
            }
            self.salloc.cand[q].connect();
            self.salloc.cand_valid[q].connect();
            for j in 0..p {
                self.valloc.cand[q * p + j].connect();
                self.valloc.cand_valid[q * p + j].connect();
                self.xbar.grant[q * p + j].connect();
            }
            self.xbar.in_data[q].connect();
            self.xbar.in_valid[q].connect();
            self.xbar.in_head[q].connect();
            self.xbar.in_tail[q].connect();
            self.out_data[q].connect();
            self.out_valid[q].connect();
            self.out_head[q].connect();
            self.out_tail[q].connect();
            self.out_vc[q].connect();
        }
        for a in [&mut self.valloc, &mut self.salloc] {
            a.clock.connect();
            a.rst.connect();
        }
        self.xbar.clock.connect();
        self.xbar.rst.connect();
    }

    fn hdl(&self) -> Verilog {
        Verilog::Custom(if self.slices.is_empty() {
            self.glue_verilog()
        } else {
            self.sliced_verilog()
        })
    }
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

impl<const W: usize> Router<W> {
    /// The glue logic of [`Logic::update`] as Verilog, one always block per
    /// stage (inputs, routing, VC allocation, switch allocation, outputs,
    /// state).
    fn glue_verilog(&self) -> String {
        let (p, v) = (self._p, self._v);
        let pv = p * v;
        let cb = COUNT_BITS;
        let vb = VC_BITS;
        let pb = PORT_BITS;
        let mut s = String::new();
        let mut line = |t: String| {
            s.push_str("    ");
            s.push_str(&t);
            s.push('\n');
        };
        line("// Glue intermediates.".into());
        for q in 0..p {
            line(format!(
                "reg rany${q}; reg [{}:0] rsel${q}; reg sany${q}; reg [{}:0] ssel${q};",
                vb - 1,
                vb - 1
            ));
            line(format!(
                "reg [{}:0] sport${q}; reg [{}:0] svc${q}; reg agot${q}; reg [{}:0] aport${q}; \
                 reg [{}:0] avc${q};",
                pb - 1,
                vb - 1,
                pb - 1,
                vb - 1
            ));
        }
        line("reg [255:0] msend0; reg [255:0] msend1;".into());
        for q in 0..p {
            line(format!("reg [{}:0] shown${q};", W - 1));
        }
        let la_on = self._la.is_some();
        if la_on {
            for q in 0..p {
                line(format!("reg [{}:0] sla${q};", LA_BITS - 1));
            }
        }

        line("// Clocks and resets of the blocks.".into());
        line("always @(*) begin".into());
        for i in 0..pv {
            line(format!("    fcu${i}$clock = clock; fcu${i}$rst = rst;"));
            line(format!(
                "    routed${i}$clock = clock; rport${i}$clock = clock; rvc${i}$clock = clock; \
                 busy${i}$clock = clock; cok${i}$clock = clock;"
            ));
            if self._onoff {
                line(format!("    on${i}$clock = clock;"));
            } else {
                line(format!("    credits${i}$clock = clock;"));
            }
        }
        for q in 0..p {
            line(format!(
                "    rptr${q}$clock = clock; sptr${q}$clock = clock;"
            ));
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
        line("    valloc$clock = clock; valloc$rst = rst;".into());
        line("    salloc$clock = clock; salloc$rst = rst;".into());
        line("    xbar$clock = clock; xbar$rst = rst;".into());
        line("end".into());

        line("// Input side: the flit goes to the buffer of its VC.".into());
        line("always @(*) begin".into());
        for q in 0..p {
            for c in 0..v {
                let i = q * v + c;
                line(format!("    fcu${i}$in_data = in_data${q};"));
                line(format!(
                    "    fcu${i}$in_valid = in_valid${q} & (in_vc${q} == {vb}'d{c});"
                ));
                line(format!("    fcu${i}$in_head = in_head${q};"));
                line(format!("    fcu${i}$in_tail = in_tail${q};"));
                line(format!(
                    "    fcu${i}$credit_in = 1'b0; fcu${i}$send_req = 1'b0;"
                ));
                line(format!("    in_credit${i} = fcu${i}$credit_out;"));
            }
        }
        line("end".into());

        line("// Routing: per input port one waiting head flit, round robin.".into());
        for i in 0..pv {
            line(format!(
                "wire wait${i} = fcu${i}$out_valid & fcu${i}$out_head & ~routed${i}$q;"
            ));
        }
        line("always @(*) begin".into());
        for q in 0..p {
            for t in round_robin_verilog(q, v, "wait", "rany", "rsel", "rptr") {
                line(t);
            }
            line(format!("    shown${q} = fcu${}$out_data;", q * v));
            for c in 1..v {
                line(format!(
                    "    if (rsel${q} == {vb}'d{c}) shown${q} = fcu${}$out_data;",
                    q * v + c
                ));
            }
            if q * v < self.dec.len() {
                for i in q * v..(q + 1) * v {
                    line(format!("    dec${i}$node_id = node_id;"));
                    line(format!("    dec${i}$in_data = fcu${i}$out_data;"));
                    line(format!(
                        "    dec${i}$in_valid = wait${i}; dec${i}$in_head = wait${i};"
                    ));
                }
            }
            // Look-ahead: the next router's field along every link j.
            for j in 1..p {
                if let Some(m) = self._la_at[q * p + j] {
                    line(format!(
                        "    ladec${m}$node_id = {};",
                        self._next[j - 1].verilog("node_id", W)
                    ));
                    line(format!(
                        "    ladec${m}$in_data = {};",
                        self._updates[j].verilog(&format!("shown${q}"), W)
                    ));
                    line(format!(
                        "    ladec${m}$in_valid = rany${q}; ladec${m}$in_head = rany${q};"
                    ));
                }
            }
        }
        line("end".into());
        if la_on {
            let ab = self._ab;
            for q in 0..p {
                line(format!(
                    "wire [{}:0] lf${q} = shown${q}[{}:{ab}];",
                    self._fb - 1,
                    ab + self._fb - 1
                ));
            }
        }

        line("// Permitted output VCs: the decoder's, or the table entry on its word line.".into());
        match (&self._es, &self._la) {
            (None, None) => {
                for q in 0..p {
                    for k in 0..pv {
                        let cand = by_rsel(q, v, |i| format!("dec${i}$cand${k}"));
                        line(format!("wire perm${q}${k} = {cand};"));
                    }
                }
            }
            (None, Some(la)) => {
                // The local port decodes its first hop; the others read the
                // VCs of their field (LAPSES §3.2).
                for k in 0..pv {
                    let cand = by_rsel(0, v, |i| format!("dec${i}$cand${k}"));
                    line(format!("wire perm$0${k} = {cand};"));
                }
                for q in 1..p {
                    line(format!("reg [{}:0] lam${q};", pv - 1));
                    line("always @(*) begin".into());
                    line(format!("    case (lf${q})"));
                    for r in &la.rows {
                        line(format!(
                            "        {}'h{:x}: lam${q} = {};",
                            self._fb,
                            r.key,
                            crate::blocks::address_decoder::hex_literal(pv, &r.mask)
                        ));
                    }
                    line(format!("        default: lam${q} = {pv}'h0;"));
                    line("    endcase".into());
                    line("end".into());
                    for k in 0..pv {
                        line(format!("wire perm${q}${k} = rany${q} & lam${q}[{k}];"));
                    }
                }
            }
            (Some(es), _) => {
                let ne = es.entries.len();
                let clb = CLASS_BITS;
                for k in 0..pv {
                    let (o, c) = (k / v, k % v);
                    let bits: Vec<String> = (0..ne)
                        .rev()
                        .map(|e| {
                            let cls: Vec<String> = (0..es.classes.len())
                                .filter(|&cl| es.class_permits(cl, o, c))
                                .map(|cl| format!("(tclass${e}$q == {clb}'d{cl})"))
                                .collect();
                            if cls.is_empty() {
                                "1'b0".to_string()
                            } else {
                                format!("(tmask${}$q & ({}))", e * p + o, cls.join(" | "))
                            }
                        })
                        .collect();
                    line(format!(
                        "wire [{}:0] tcol${k} = {{{}}};",
                        ne - 1,
                        bits.join(", ")
                    ));
                }
                for q in 0..p {
                    let lines: Vec<String> = (0..ne)
                        .rev()
                        .map(|e| {
                            if es.kind == tables::TableKind::Economical {
                                by_rsel(q, v, |i| format!("dec${i}$cand${e}"))
                            } else {
                                format!(
                                    "(rany${q} & {})",
                                    es.selects_verilog(e, &format!("shown${q}"), "node_id")
                                )
                            }
                        })
                        .collect();
                    line(format!(
                        "wire [{}:0] word${q} = {{{}}};",
                        ne - 1,
                        lines.join(", ")
                    ));
                    for k in 0..pv {
                        line(format!("wire perm${q}${k} = |(word${q} & tcol${k});"));
                    }
                }
            }
        }

        line("// VC allocation: candidate slot j = output port j with a free permitted VC.".into());
        for o in 0..p {
            let sum: Vec<String> = (0..v)
                .map(|c| {
                    if self._onoff {
                        format!("{{8'd0, on${}$q}}", o * v + c)
                    } else {
                        format!("{{{}'d0, credits${}$q}}", 9 - cb, o * v + c)
                    }
                })
                .collect();
            line(format!("wire [8:0] csum${o} = {};", sum.join(" + ")));
            let held: Vec<String> = (0..v)
                .map(|c| format!("{{7'd0, busy${}$q}}", o * v + c))
                .collect();
            line(format!("wire [7:0] bsum${o} = {};", held.join(" + ")));
        }
        for k in 0..pv {
            let empty = if self._table.atomic {
                format!(" & (credits${k}$q == {cb}'d{})", self._depth)
            } else {
                String::new()
            };
            line(format!("wire vfree${k} = ~busy${k}$q{empty};"));
        }
        line("always @(*) begin".into());
        for o in 0..p {
            line(format!("    valloc$out_free${o} = 1'b1;"));
            line(format!(
                "    valloc$out_credits${o} = csum${o}[8] ? 8'hff : csum${o}[7:0];"
            ));
            line(format!("    valloc$out_mux${o} = bsum${o};"));
        }
        for q in 0..p {
            line(format!("    valloc$req${q} = rany${q};"));
            for j in 0..p {
                let m = q * p + j;
                let open: Vec<String> = (0..v)
                    .map(|c| format!("(perm${q}${} & vfree${})", j * v + c, j * v + c))
                    .collect();
                // A pair the crossbar does not wire is never a candidate.
                let open = if self._links[j * p + q] {
                    open.join(" | ")
                } else {
                    "1'b0".into()
                };
                line(format!(
                    "    valloc$cand${m} = {pb}'d{j}; valloc$cand_valid${m} = {open};"
                ));
            }
        }
        line("end".into());
        line("always @(*) begin".into());
        for q in 0..p {
            line(format!(
                "    agot${q} = 1'b0; aport${q} = {pb}'d0; avc${q} = {vb}'d0;"
            ));
            for j in 0..p {
                for c in (0..v).rev() {
                    line(format!(
                        "    if (valloc$grant${} & perm${q}${} & vfree${}) begin \
                         agot${q} = 1'b1; aport${q} = {pb}'d{j}; avc${q} = {vb}'d{c}; end",
                        q * p + j,
                        j * v + c,
                        j * v + c
                    ));
                }
            }
        }
        line("end".into());
        if la_on {
            line("// Look-ahead mux: the granted port's next-router field.".into());
            line("always @(*) begin".into());
            for q in 0..p {
                line(format!("    lamux${q}$in_hdr = {W}'d0;"));
                for j in 0..p {
                    line(format!(
                        "    lamux${q}$sel${j} = valloc$grant${};",
                        q * p + j
                    ));
                    for b in 0..self._fb {
                        let bit = match self._la_at[q * p + j] {
                            Some(m) => format!("ladec${m}$cand${b}"),
                            None if j == 0 => format!("lf${q}[{b}]"),
                            None => "1'b0".into(),
                        };
                        line(format!(
                            "    lamux${q}$next_mask${} = {bit};",
                            j * self._fb + b
                        ));
                    }
                }
            }
            line("end".into());
        }

        line(
            "// Switch allocation: per input port one ready VC, per output port one input.".into(),
        );
        for i in 0..pv {
            line(format!("wire ready${i} = fcu${i}$out_valid & cok${i}$q;"));
        }
        line("always @(*) begin".into());
        for q in 0..p {
            for t in round_robin_verilog(q, v, "ready", "sany", "ssel", "sptr") {
                line(t);
            }
            let i0 = q * v;
            line(format!(
                "    sport${q} = rport${i0}$q; svc${q} = rvc${i0}$q;"
            ));
            line(format!(
                "    xbar$in_data${q} = fcu${i0}$out_data; xbar$in_head${q} = fcu${i0}$out_head; \
                 xbar$in_tail${q} = fcu${i0}$out_tail;"
            ));
            for c in 1..v {
                let i = q * v + c;
                line(format!(
                    "    if (ssel${q} == {vb}'d{c}) begin sport${q} = rport${i}$q; svc${q} = rvc${i}$q; \
                     xbar$in_data${q} = fcu${i}$out_data; xbar$in_head${q} = fcu${i}$out_head; \
                     xbar$in_tail${q} = fcu${i}$out_tail; end"
                ));
            }
            if la_on {
                // A head flit crosses with the look-ahead field chosen for it.
                let ab = self._ab;
                line(format!("    sla${q} = rla${i0}$q;"));
                for c in 1..v {
                    line(format!(
                        "    if (ssel${q} == {vb}'d{c}) sla${q} = rla${}$q;",
                        q * v + c
                    ));
                }
                let x = format!("xbar$in_data${q}");
                let fb = self._fb;
                let top = if ab + fb < W {
                    format!("{x}[{}:{}], ", W - 1, ab + fb)
                } else {
                    String::new()
                };
                line(format!(
                    "    if (xbar$in_head${q}) {x} = {{{top}sla${q}[{}:0], {x}[{}:0]}};",
                    fb - 1,
                    ab - 1
                ));
            }
            // The header of the port the chosen VC holds (only ports the
            // crossbar links to q).
            let x = format!("xbar$in_data${q}");
            for o in (0..p).filter(|&o| self._links[o * p + q]) {
                let updated = self._updates[o].verilog(&x, W);
                if updated != x {
                    line(format!(
                        "    if (xbar$in_head${q} & (sport${q} == {pb}'d{o})) {x} = {updated};"
                    ));
                }
            }
            line(format!(
                "    salloc$req${q} = sany${q}; salloc$cand${q} = sport${q}; salloc$cand_valid${q} = 1'b1;"
            ));
            line(format!(
                "    salloc$out_free${q} = 1'b1; salloc$out_credits${q} = 8'd0; salloc$out_mux${q} = 8'd0;"
            ));
        }
        line("end".into());
        line("always @(*) begin".into());
        for m in 0..p * p {
            line(format!("    xbar$grant${m} = salloc$grant_out${m};"));
        }
        for q in 0..p {
            line(format!("    xbar$in_valid${q} = salloc$grant${q};"));
            for c in 0..v {
                line(format!(
                    "    fcu${}$out_ready = salloc$grant${q} & (ssel${q} == {vb}'d{c});",
                    q * v + c
                ));
            }
        }
        line("end".into());

        line("// Output side: the flits as they cross, the output VC.".into());
        line("always @(*) begin".into());
        for o in 0..p {
            line(format!("    out_data${o} = xbar$out_data${o};"));
            line(format!("    out_valid${o} = xbar$out_valid${o};"));
            line(format!("    out_head${o} = xbar$out_head${o};"));
            line(format!("    out_tail${o} = xbar$out_tail${o};"));
            line(format!("    out_vc${o} = {vb}'d0;"));
            for q in 0..p {
                line(format!(
                    "    if (salloc$grant_out${}) out_vc${o} = out_vc${o} | svc${q};",
                    o * p + q
                ));
            }
        }
        line("end".into());

        line("// State: held output VCs, credits, round-robin pointers.".into());
        line("always @(*) begin".into());
        // Output VC {o, c} may send in the next cycle after 0 or 1 flit
        // leaves by it now (the model's `may_send`).
        line("    msend0 = 256'h0; msend1 = 256'h0;".into());
        for o in 0..p {
            for c in 0..v {
                let k = o * v + c;
                let at = (o << vb) + c;
                if self._onoff {
                    line(format!(
                        "    msend0[{at}] = out_credit${k}; msend1[{at}] = out_credit${k};"
                    ));
                } else {
                    line(format!(
                        "    msend0[{at}] = out_credit${k} | (credits${k}$q != {cb}'d0); \
                         msend1[{at}] = out_credit${k} | (credits${k}$q > {cb}'d1);"
                    ));
                }
            }
        }
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
        for q in 0..p {
            for c in 0..v {
                let i = q * v + c;
                let granted = format!("(agot${q} & (rsel${q} == {vb}'d{c}))");
                line(format!(
                    "    if (rst) cok${i}$d = 1'b0; else if {granted} cok${i}$d = msend0[{{aport${q}, avc${q}}}]; \
                     else if ((fcu${i}$out_ready & fcu${i}$out_tail) | ~routed${i}$q) cok${i}$d = 1'b0; \
                     else if (fcu${i}$out_ready) cok${i}$d = msend1[{{rport${i}$q, rvc${i}$q}}]; \
                     else cok${i}$d = msend0[{{rport${i}$q, rvc${i}$q}}];"
                ));
                line(format!(
                    "    if (rst) routed${i}$d = 1'b0; else if {granted} routed${i}$d = 1'b1; \
                     else if (fcu${i}$out_ready & fcu${i}$out_tail) routed${i}$d = 1'b0; \
                     else routed${i}$d = routed${i}$q;"
                ));
                line(format!(
                    "    if (rst) rport${i}$d = {pb}'d0; else if {granted} rport${i}$d = aport${q}; \
                     else rport${i}$d = rport${i}$q;"
                ));
                line(format!(
                    "    if (rst) rvc${i}$d = {vb}'d0; else if {granted} rvc${i}$d = avc${q}; \
                     else rvc${i}$d = rvc${i}$q;"
                ));
                if la_on {
                    // The field sits in the header's low bits; a flit narrower
                    // than the register is zero-extended (the field fits it).
                    let field = if W >= LA_BITS {
                        format!("lamux${q}$out_hdr[{}:0]", LA_BITS - 1)
                    } else {
                        format!("{{{}'d0, lamux${q}$out_hdr}}", LA_BITS - W)
                    };
                    line(format!(
                        "    if (rst) rla${i}$d = {LA_BITS}'d0; else if {granted} \
                         rla${i}$d = {field}; else rla${i}$d = rla${i}$q;"
                    ));
                }
            }
            for r in ["rptr", "sptr"] {
                let cur = format!("{r}${q}$q");
                line(format!(
                    "    if (rst) {r}${q}$d = {vb}'d0; else {r}${q}$d = {};",
                    step(&cur)
                ));
            }
        }
        for o in 0..p {
            for c in 0..v {
                let k = o * v + c;
                let taken: Vec<String> = (0..p)
                    .map(|q| {
                        format!("(agot${q} & (aport${q} == {pb}'d{o}) & (avc${q} == {vb}'d{c}))")
                    })
                    .collect();
                let sent = format!("(xbar$out_valid${o} & (out_vc${o} == {vb}'d{c}))");
                line(format!(
                    "    if (rst) busy${k}$d = 1'b0; else if ({}) busy${k}$d = 1'b1; \
                     else if ({sent} & xbar$out_tail${o}) busy${k}$d = 1'b0; \
                     else busy${k}$d = busy${k}$q;",
                    taken.join(" | ")
                ));
                if self._onoff {
                    line(format!(
                        "    if (rst) on${k}$d = 1'b0; else on${k}$d = out_credit${k};"
                    ));
                    continue;
                }
                // Both sums come from flip-flops and inputs; the late
                // `sent` only selects between them.
                let (d, m) = (self._depth, mask_for(self._depth));
                line(format!(
                    "    if (rst) credits${k}$d = {cb}'d{d}; \
                     else if {sent} credits${k}$d = (credits${k}$q - {cb}'d1 \
                     + {{{}'d0, out_credit${k}}}) & {cb}'d{m}; \
                     else credits${k}$d = (credits${k}$q \
                     + {{{}'d0, out_credit${k} & (credits${k}$q != {cb}'d{d})}}) & {cb}'d{m};",
                    cb - 1,
                    cb - 1,
                ));
            }
        }
        if let Some(es) = &self._es {
            let ab = crate::blocks::es_table::ADDR_BITS;
            let by_node = es.kind != tables::TableKind::Economical;
            for (e, init) in es.entries.iter().enumerate() {
                let write = format!("(cfg_we & (cfg_addr == {ab}'d{e}))");
                let class = if by_node {
                    format!("iclass${e}")
                } else {
                    format!("{}'d{}", CLASS_BITS, init.class)
                };
                line(format!(
                    "    if (rst) tclass${e}$d = {class}; else if {write} tclass${e}$d = cfg_class; \
                     else tclass${e}$d = tclass${e}$q;"
                ));
                for o in 0..p {
                    let j = e * p + o;
                    let bit = if by_node {
                        format!("imask${e}[{o}]")
                    } else {
                        format!("1'b{}", (init.mask >> o) & 1)
                    };
                    line(format!(
                        "    if (rst) tmask${j}$d = {bit}; else if {write} tmask${j}$d = cfg_mask${o}; \
                         else tmask${j}$d = tmask${j}$q;"
                    ));
                }
            }
        }
        line("end".into());
        if let Some(es) = self._es.as_ref().filter(|t| !t.by_node.is_empty()) {
            // The reset contents of the router's node: a ROM node_id ->
            // entries (a node_id of no node loads nothing permitted).
            for e in 0..es.entries.len() {
                line(format!(
                    "reg [{}:0] imask${e}; reg [{}:0] iclass${e};",
                    p - 1,
                    CLASS_BITS - 1
                ));
            }
            line("always @(*) begin".into());
            for e in 0..es.entries.len() {
                line(format!(
                    "    imask${e} = {p}'h0; iclass${e} = {CLASS_BITS}'d0;"
                ));
            }
            line("    case (node_id)".into());
            for (id, entries) in &es.by_node {
                let sets: Vec<String> = entries
                    .iter()
                    .enumerate()
                    .map(|(e, x)| {
                        format!(
                            "imask${e} = {p}'h{:x}; iclass${e} = {CLASS_BITS}'d{};",
                            x.mask, x.class
                        )
                    })
                    .collect();
                line(format!("        {W}'h{id:x}: begin {} end", sets.join(" ")));
            }
            line("        default: ;".into());
            line("    endcase".into());
            line("end".into());
        }
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
        f(&mut self.cfg_we);
        f(&mut self.cfg_addr);
        each(&mut self.cfg_mask, f);
        f(&mut self.cfg_class);
    }
    fn bias(&self, name: &str) -> Option<f64> {
        if name == "cfg_we" {
            // Rare writes: routes change now and then, packets still flow.
            Some(0.05)
        } else if name.starts_with("in_valid") {
            Some(0.5)
        } else if self._onoff && name.starts_with("out_credit") {
            // Downstream levels: mostly on, so that flits flow.
            Some(0.7)
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
        } else if name == "cfg_addr" {
            // Mostly real entries, sometimes one past the table (where the
            // top module's cfg_addr can name one).
            Some(
                self._es
                    .as_ref()
                    .map_or(1, |t| (t.entries.len() as u64 + 1).min(1 << t.addr_bits())),
            )
        } else if name == "node_id" {
            // Full and meta tables load their node's contents at reset:
            // node ids of real nodes, mostly (radix 2^m: all of them).
            self._es
                .as_ref()
                .filter(|t| !t.by_node.is_empty())
                .map(|t| 1 << (t.dims * t.coord_bits))
        } else if name == "cfg_class" {
            // The top module's cfg_class is this wide.
            Some(self._es.as_ref().map_or(1, |t| 1 << t.class_bits()))
        } else {
            None
        }
    }
}

/// Verilator waivers for the router's rust-hdl modules, with their reasons.
const CORE_WAIVERS: &str = "\
// Waiver UNUSEDSIGNAL: the router leaves some block outputs and input bits
// unread: the send side of the input buffers (each output VC's downstream
// credits are counted at the output), the allocators' per-candidate grants
// or crossbar grants where the other form is used, the crossbar's busy flags
// (a per-flit crossbar holds no connection), the buffers' overflow flags
// (never raised: the router sends into a buffer only with a credit for it),
// and the payload bits of head flits and node_id bits the decoders do not
// read.
/* verilator lint_off UNUSEDSIGNAL */
// Waiver UNOPTFLAT: each block is one always block, so Verilator sees loops
// through the allocators, the decoders and the crossbar at the granularity
// of whole blocks; every loop is cut by a flip-flop (pointers, held output
// VCs, credits, buffers), none exists bit by bit.
/* verilator lint_off UNOPTFLAT */
";

/// Name of the rust-hdl router module inside the emitted file.
pub fn core_name(spec: &RouterSpec) -> String {
    format!("{}_core", spec.name())
}

/// The rust-hdl router's Verilog, its modules renamed under
/// `<name>_core` (no clean top module).
pub fn core_verilog(spec: &RouterSpec) -> Result<String> {
    core_verilog_of(spec, compile(spec)?)
}

/// [`core_verilog`] with the relation already compiled.
pub fn core_verilog_of(spec: &RouterSpec, table: CompiledTable) -> Result<String> {
    fn emit<const W: usize>(spec: &RouterSpec, table: CompiledTable) -> Result<String> {
        let mut r = Router::<W>::with_table(spec, table)?;
        crate::blocks::prepare(&mut r);
        Ok(generate_verilog(&r))
    }
    let text = match spec.flit_width {
        16 => emit::<16>(spec, table)?,
        32 => emit::<32>(spec, table)?,
        64 => emit::<64>(spec, table)?,
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
    let table = compile(spec)?;
    let top = top_verilog_of(spec, &table)?;
    let core = core_verilog_of(spec, table)?;
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

/// Whether the top module of `spec` has a `node_id` input, and its width
/// (docs/interface.md: n coordinates of `coord_bits` each).
pub fn node_id_bits(spec: &RouterSpec) -> Result<Option<u32>> {
    let table = compile(spec)?;
    Ok(node_id_bits_of(&table))
}

/// The `node_id` width of a router with the compiled relation `table`.
pub fn node_id_bits_of(table: &CompiledTable) -> Option<u32> {
    table
        .needs_node()
        .then_some((table.shape.dims * table.shape.coord_bits) as u32)
}

const TOP_TEMPLATE: &str = include_str!("../../templates/router_top.v.tera");

/// The clean top module, from `templates/router_top.v.tera`.
pub fn top_verilog(spec: &RouterSpec) -> Result<String> {
    top_verilog_of(spec, &compile(spec)?)
}

/// [`top_verilog`] with the relation already compiled.
pub fn top_verilog_of(spec: &RouterSpec, table: &CompiledTable) -> Result<String> {
    let mut ctx = tera::Context::new();
    let ports: Vec<usize> = (0..table.ports()).collect();
    let vb = vc_bits(spec.vcs);
    ctx.insert("name", &spec.name());
    ctx.insert("core", &core_name(spec));
    ctx.insert("hypercube", &(spec.topology == Topology::Hypercube));
    ctx.insert("ports", &ports);
    ctx.insert("w", &spec.flit_width);
    ctx.insert("v", &spec.vcs);
    ctx.insert("vb", &vb);
    ctx.insert("vc_pad", &(VC_BITS as u32 - vb));
    ctx.insert("vc_inner", &VC_BITS);
    ctx.insert("lanes", &(0..spec.vcs as usize).collect::<Vec<_>>());
    let node_bits = node_id_bits_of(table);
    ctx.insert("has_node", &node_bits.is_some());
    ctx.insert("node_bits", &node_bits.unwrap_or(0));
    ctx.insert("node_pad", &(spec.flit_width - node_bits.unwrap_or(0)));
    let es = table.es.as_ref();
    ctx.insert("has_table", &es.is_some());
    let ab = crate::blocks::es_table::ADDR_BITS as u32;
    let addr_bits = es.map_or(1, |t| t.addr_bits());
    let class_bits = es.map_or(1, |t| t.class_bits());
    ctx.insert("addr_bits", &addr_bits);
    ctx.insert("addr_pad", &(ab - addr_bits));
    ctx.insert("addr_inner", &ab);
    ctx.insert("class_bits", &class_bits);
    ctx.insert("class_pad", &(CLASS_BITS as u32 - class_bits));
    ctx.insert("class_inner", &CLASS_BITS);
    tera::Tera::one_off(TOP_TEMPLATE, &ctx, false)
        .map_err(|e| Error::InvalidSpec(format!("router top template: {e}")))
}

#[cfg(test)]
pub(crate) mod tests;
