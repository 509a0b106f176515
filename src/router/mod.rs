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
//!   flits sit in flip-flops, or with `buffers = bram` in a block RAM per
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
//!   With `table = economical` (LAPSES §5.2.1) the decoder reduces the
//!   address to the sign vector of (destination - node id) and drives the
//!   word line of that entry of the router's one programmable table of 3^n
//!   entries (flip-flops: per entry the permitted ports and a VC class,
//!   [`tables::EsContents`]), read by every input port at once; reset
//!   loads the contents [`tables::economical`] derives from the compiled
//!   relation, and `cfg_*` (docs/interface.md) rewrites an entry.
//!   With `table = full` (LAPSES §5) an entry per destination and with
//!   `table = meta` (§5.1.1) an entry per node of the router's cluster
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
//! With `lookahead = true` (LAPSES §3.2, [`lookahead`]) a head flit arriving on
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
//! With `flow_control = on-off` each input VC's buffer raises its level
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
//! `a_registered_on_level_needs_two_free_slots` (src/blocks/flow_control/tests.rs) shows.
//! The buffer must therefore hold at least 2 flits (with D = 1 the level
//! never rises); the spec refuses shallower buffers. Registering the level
//! keeps every output a function of flip-flops: no input reaches an output
//! in the same cycle, also in a chain of routers. MAX-CREDIT counts the
//! VCs of a port whose level is high.
//!
//! Departure from Chien §5 (Figures 5-8): every algorithm uses this one
//! organization by default (`datapath = unified`). Chien's dimension
//! slices (one 3x3 crossbar per dimension for dimension order, §5.1,
//! Figure 5) are built with `datapath = sliced` ([`sliced`]: a router of
//! n such routers of 1-D networks), and so are the plane slices of
//! planar-adaptive routing on meshes (§5.2, Figure 6; [`planes`]: n-1
//! routers of 2-D meshes); *-channels' crossbar with a port per virtual
//! channel (§5.4, Figure 8) is built with `datapath = vc-ports` for
//! *-channels and Duato ([`vcports`]: this router over P V ports of one VC
//! each, and a VC controller per link).
//!
//! # Supported configurations
//!
//! [`supported`] says which: every algorithm on every topology it is
//! defined on (`Algorithm::supports`), networks of at most
//! [`MAX_NODES`] nodes, relative or absolute addressing (the
//! address fields of `RouterSpec::address_field_bits` must fit the flit),
//! credit or on/off flow control (D >= 2), look-ahead (on tori up to 8
//! ports), no routing table, the economical-storage table (meshes and
//! hypercubes), the full table (at most [`MAX_FULL_TABLE_NODES`]
//! nodes) or the meta table (at most
//! [`MAX_META_TABLE_NODES`](crate::limits::MAX_META_TABLE_NODES) nodes,
//! where the deadlock checker proves the relation it restricts), W in
//! [`ROUTER_FLIT_WIDTHS`], P <= [`MAX_PORTS`], V <= [`MAX_VCS`], D <=
//! [`MAX_BUFFER_DEPTH`] (every limit in one table: [`crate::limits`]). [`matrix`] lists the configurations the
//! tests build. Everything else returns `Error::InvalidSpec` naming what
//! is not supported yet.
//!
//! `node_id` (docs/interface.md) is read where the routing key needs it:
//! with absolute addressing, on tori (the dateline: is the wraparound link
//! ahead?) and on hypercubes under negative-first (the direction of each
//! dimension's link); [`tables::compile`] finds which.
//!
//! # The glue, written once or twice
//!
//! rust-hdl's own writer of `#[hdl_gen]` code is wrong for a Vec field of
//! an element of a Vec of sub-blocks (`self.dec[i].cand[o]` becomes
//! `dec$0$cand[o]`, with no error); routergen's writer ([`crate::hdl`])
//! evaluates every index. A stage of the unified router's glue written as
//! a `unified::Stage` is therefore written once: its `#[hdl_gen] update`
//! is the simulation model, and its code is the Verilog. The stages not
//! yet written so have a plain Rust model and a hand-written Verilog text
//! side by side in their file of [`unified`], held equal by the
//! co-simulation test; the organizations built from unified routers
//! ([`Organization`]) keep their wiring's two forms in [`sliced`],
//! [`planes`] and [`vcports`].
//!
//! # Files
//!
//! [`block`]: the [`Router`] block and its ports; [`organization`]: what
//! sits behind them; [`unified`]: the unified router by stage; [`sliced`],
//! [`planes`], [`vcports`]: Chien's other organizations; [`tables`]: the
//! relation compiled for the decoders and the routing tables;
//! [`lookahead`]: the look-ahead field. This file: what the router
//! supports, and its Verilog (core and top module).
//!
//! [`FlowControlUnit`]: crate::blocks::FlowControlUnit
//! [`AddressDecoder`]: crate::blocks::AddressDecoder
//! [`RoutingArbiter`]: crate::blocks::RoutingArbiter
//! [`Crossbar::per_flit_linking`]: crate::blocks::Crossbar::per_flit_linking
//! [`HeaderUpdate`]: crate::blocks::address_decoder::HeaderUpdate
//! [`LookaheadMux`]: crate::blocks::LookaheadMux
pub mod block;
pub mod lookahead;
pub mod organization;
pub mod planes;
pub mod sliced;
pub mod tables;
pub mod unified;
pub mod vcports;

use crate::limits::{
    MAX_BUFFER_DEPTH, MAX_FULL_TABLE_NODES, MAX_NODES, MAX_PORTS, MAX_TABLE_VC_CLASSES, MAX_VCS,
    ROUTER_FLIT_WIDTHS,
};
use rust_hdl::prelude::*;

use crate::algo::{Knobs, Network, Relation};
use crate::error::{Error, Result};
use crate::spec::{FlowControl, RouterDatapath, RouterSpec, TableStorage, Topology};
pub use block::Router;
pub use organization::Organization;
use std::cell::RefCell;
use tables::CompiledTable;

/// Bits of a VC number inside the router (V up to [`MAX_VCS`]).
pub const VC_BITS: usize = 4;
const _: () = assert!(1 << VC_BITS == MAX_VCS as usize);
// The VC controllers put their VC numbers on the router's output ports as
// they are.
const _: () = assert!(VC_BITS == crate::blocks::vc_controller::VC_BITS);
/// Bits of a port number inside the router (P up to [`MAX_PORTS`]).
pub const PORT_BITS: usize = crate::blocks::arbiter::PORT_BITS;
const _: () = assert!(1 << PORT_BITS == MAX_PORTS as usize);

type VcId = Bits<VC_BITS>;
type PortId = Bits<PORT_BITS>;
/// Bits of a VC class register of the economical-storage table.
pub const CLASS_BITS: usize = 4;
const _: () = assert!(1 << CLASS_BITS == MAX_TABLE_VC_CLASSES);
type ClassId = Bits<CLASS_BITS>;
type EsAddr = Bits<{ crate::blocks::es_table::ADDR_BITS }>;
/// Bits of a look-ahead field register: P bits, 2P on a torus, whose
/// largest (4 dimensions, P = 9) takes 18.
pub const LA_BITS: usize = 18;

/// On/off flow control: the free slots an input VC needs for its level to
/// be high, the router's round trip (module documentation).
pub const ON_OFF_SLACK: usize = crate::spec::ON_OFF_ROUND_TRIP as usize;

/// Whether routergen can build a router for `spec`; the error names what is
/// not supported yet.
pub fn supported(spec: &RouterSpec) -> Result<()> {
    compile(spec).map(|_| ())
}

fn unsupported(what: String) -> Error {
    Error::InvalidSpec(format!(
        "router generation does not support {what} yet (supported: meshes, tori and \
         hypercubes of at most {MAX_NODES} nodes with every algorithm, relative or \
         absolute addressing, credit or on/off flow control, look-ahead (on tori up to 8 \
         ports), no routing table, an economical-storage one, a full one of at most \
         {MAX_FULL_TABLE_NODES} entries or a meta one, flit widths {}, at most \
         {MAX_PORTS} ports, {MAX_VCS} virtual channels and {MAX_BUFFER_DEPTH}-flit \
         buffers)",
        crate::spec::names::one_of(&ROUTER_FLIT_WIDTHS)
    ))
}

/// The relation of `spec`, compiled for the router's address decoders.
pub fn compile(spec: &RouterSpec) -> Result<CompiledTable> {
    thread_local!(static LAST: Last<CompiledTable> = const { RefCell::new(None) });
    recall(&LAST, spec, || compile_with(spec, Knobs::default()))
}

/// The last answer computed on this thread, with the spec it was for.
type Last<T> = RefCell<Option<(RouterSpec, T)>>;

/// `f()`, or the answer `last` keeps where it was for the same `spec`:
/// generating a router asks for its compiled relation and its Verilog once
/// per emitted file and proof harness, and at 4,096 nodes a compilation
/// takes seconds.
fn recall<T: Clone + 'static>(
    last: &'static std::thread::LocalKey<Last<T>>,
    spec: &RouterSpec,
    f: impl FnOnce() -> Result<T>,
) -> Result<T> {
    if let Some(t) =
        last.with_borrow(|l| l.as_ref().and_then(|(s, t)| (s == spec).then(|| t.clone())))
    {
        return Ok(t);
    }
    let t = f()?;
    last.set(Some((spec.clone(), t.clone())));
    Ok(t)
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
            "the dateline-free test relation with datapath = sliced".into(),
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
             computed, so two flits can arrive beyond the occupancy it saw); got \
             buffer_depth = {}",
            spec.buffer_depth
        )));
    }
    if !ROUTER_FLIT_WIDTHS.contains(&spec.flit_width) {
        return Err(unsupported(format!("flit width {}", spec.flit_width)));
    }
    if !(1..=MAX_BUFFER_DEPTH).contains(&spec.buffer_depth) {
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
            "the head flit's address does not fit flit_width = {}: {} addressing on a \
             {}-ary {}-dimensional {} takes {field} bits per dimension, {} in all{}; use a \
             wider flit, a smaller radix or fewer dims",
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
    if spec.nodes() > MAX_NODES {
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
             use flow_control = credit",
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
        TableStorage::Meta => table.es = Some(tables::meta(&rel, &table, spec.meta_clusters)?),
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
/// (`datapath = sliced`) on a 3-D torus and a 4-cube; a crossbar port per
/// VC (`datapath = vc-ports`) for *-channels on a 2-D torus and Duato on a
/// 3-D mesh and a 3-cube (129); and the unidirectional tori, n = 2 and 3,
/// last, so that the configurations before them keep their flit widths
/// (137 in all).
pub fn matrix() -> Vec<RouterSpec> {
    use crate::spec::names::Named;
    use crate::spec::Algorithm;
    let mut out = Vec::new();
    let bidirectional = Topology::all()
        .into_iter()
        .filter(|&t| t != Topology::UniTorus);
    for algorithm in Algorithm::all() {
        for topology in bidirectional.clone() {
            let dims: &[u32] = match topology {
                Topology::Torus => &[2, 3],
                _ => &[2, 3, 4],
            };
            matrix_family(&mut out, algorithm, topology, dims);
        }
    }
    out.extend(sliced::samples());
    out.extend(vcports::samples());
    for algorithm in Algorithm::all() {
        matrix_family(&mut out, algorithm, Topology::UniTorus, &[2, 3]);
    }
    out
}

/// One router per option family the matrix does not vary (look-ahead with
/// one cycle per router, the three routing tables, on/off flow control,
/// block and distributed RAM buffers, a path selection that reads state),
/// and the reference router of docs/performance.md: the checks that hold
/// the matrix (the writer's code, `make equiv-before`) hold these too.
pub fn option_families() -> Vec<RouterSpec> {
    [
        "algorithm = \"duato\"\nradix = 3\nvcs = 2\nflit_width = 16\nlookahead = true\n\
         pipeline = 1",
        "algorithm = \"west-first\"\nvcs = 1\nflit_width = 16\ntable = \"economical\"",
        "algorithm = \"dor\"\nradix = 3\nvcs = 1\nflit_width = 16\ntable = \"full\"",
        "algorithm = \"dor\"\nvcs = 1\nflit_width = 16\ntable = \"meta\"",
        "algorithm = \"negative-first\"\ntopology = \"hypercube\"\ndims = 3\nradix = 2\n\
         flit_width = 16\nflow_control = \"on-off\"",
        "algorithm = \"dor\"\ntopology = \"torus\"\nvcs = 2\nflit_width = 16\n\
         buffers = \"bram\"",
        "algorithm = \"dor\"\ntopology = \"torus\"\nvcs = 2\nflit_width = 64\n\
         buffers = \"lutram\"",
        "algorithm = \"duato\"\nvcs = 2\nflit_width = 16\npath_selection = \"lru\"",
        "algorithm = \"dor\"\nvcs = 2\nflit_width = 32\nlookahead = true",
        "algorithm = \"dor\"\nvcs = 2\nflit_width = 32\nbuffer_depth = 4",
    ]
    .iter()
    .map(|toml| {
        crate::spec::SpecInput::from_toml(toml, std::path::Path::new("family.toml"))
            .and_then(|s| s.resolve())
            .expect("the option families are valid")
            .spec
    })
    .collect()
}

/// Appends to `out` the matrix's routers of `algorithm` on `topology` with
/// `dims` dimensions where the algorithm supports it: V = its minimum and
/// one more, relative and absolute addressing, flit widths in turn.
fn matrix_family(
    out: &mut Vec<RouterSpec>,
    algorithm: crate::spec::Algorithm,
    topology: Topology,
    dims: &[u32],
) {
    use crate::spec::names::Named;
    use crate::spec::{Addressing, SpecInput};
    for &n in dims {
        if algorithm.supports(topology, n).is_err() {
            continue;
        }
        let min = algorithm.min_vcs(topology, n);
        for vcs in [min, min + 1] {
            for addressing in Addressing::all() {
                let w = ROUTER_FLIT_WIDTHS[out.len() % ROUTER_FLIT_WIDTHS.len()];
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

/// The hierarchical name, inside the core of a unified router of `vcs`
/// VCs per port, of the flow-control unit of input VC `i` = q V + c
/// (`in_p[q].vc[c].buffer`, for probes into the router).
pub fn buffer_instance(i: usize, vcs: usize) -> String {
    crate::hdl::instance_path("fcu", i, &instance_loops(vcs))
}

/// The hierarchical name, inside the core, of the queue (occupancy
/// `count`, `front_valid`, `pop`) of input VC `i`'s flow-control unit,
/// an instance of `<core>_flow_control_unit_queue`.
pub fn buffer_queue_instance(i: usize, vcs: usize) -> String {
    format!("{}.queue", buffer_instance(i, vcs))
}

/// How a unified router of `vcs` VCs per port names the instances of its
/// per-port and per-VC blocks: by the input port q and VC c they serve
/// (`in_p[2].vc[1].buffer`, `route_p[2].vc[1].decoder`).
pub fn instance_loops(vcs: usize) -> [crate::hdl::InstanceLoops<'static>; 4] {
    use crate::hdl::InstanceLoops as L;
    let per_vc = |field, outer, instance| L {
        field,
        outer,
        inner: Some(("vc", vcs)),
        instance,
    };
    let per_port = |field, outer, instance| L {
        field,
        outer,
        inner: None,
        instance,
    };
    [
        per_vc("fcu", "in_p", "buffer"),
        per_vc("dec", "route_p", "decoder"),
        per_port("indec", "arrive_p", "decoder"),
        per_port("lamux", "lookahead_p", "mux"),
    ]
}

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
    Ok(core_written(spec, table)?.text)
}

/// The router core as [`crate::hdl::write`] writes it, with the waivers.
fn core_written(spec: &RouterSpec, table: CompiledTable) -> Result<crate::hdl::Written> {
    fn emit<const W: usize>(
        spec: &RouterSpec,
        table: CompiledTable,
    ) -> Result<crate::hdl::Written> {
        let mut r = Router::<W>::with_table(spec, table)?;
        crate::blocks::prepare(&mut r);
        // A unified router's core module is the unified router itself.
        match r.organization() {
            organization::Organization::Unified(u) => crate::hdl::write_named(
                &**u,
                &core_name(spec),
                MODULE_TITLES,
                &instance_loops(u.vcs()),
            ),
            _ => crate::hdl::write_named(&r, &core_name(spec), MODULE_TITLES, &[]),
        }
    }
    let mut w = match spec.flit_width {
        16 => emit::<16>(spec, table)?,
        32 => emit::<32>(spec, table)?,
        64 => emit::<64>(spec, table)?,
        w => return Err(unsupported(format!("flit width {w}"))),
    };
    w.text = format!("{CORE_WAIVERS}{DECLFILENAME_WAIVER}{}", w.text);
    Ok(w)
}

/// The router's modules named by the paper's block each field holds (the
/// flow-control unit's parts after it).
const MODULE_TITLES: &[(&str, &str)] = &[
    ("fcu", "flow_control_unit"),
    ("queue", "flow_control_unit_queue"),
    ("sender", "flow_control_unit_sender"),
    ("flops", "flow_control_unit_flops"),
    ("bram", "flow_control_unit_bram"),
    ("ram", "flow_control_unit_ram"),
    ("lutram", "flow_control_unit_lutram"),
    ("fields", "flow_control_unit_fields"),
    ("dec", "address_decoder"),
    ("indec", "arrival_decoder"),
    ("ladec", "lookahead_decoder"),
    ("lamux", "lookahead_mux"),
    ("valloc", "vc_allocator"),
    ("routing_arbiter", "routing_arbiter"),
    ("salloc", "switch_allocator"),
    ("arbiter", "switch_arbiter"),
    ("second_arbiter", "switch_arbiter"),
    ("xbar", "crossbar"),
    ("output_unit", "output_unit"),
];

const DECLFILENAME_WAIVER: &str = "\
// Waiver DECLFILENAME: the router's modules share its one file.
/* verilator lint_off DECLFILENAME */
";

/// The router of `spec` as Verilog: the rust-hdl modules renamed under the
/// configuration's name and a top module `spec.name()` with exactly the
/// ports of docs/interface.md.
pub fn verilog(spec: &RouterSpec) -> Result<String> {
    thread_local!(static LAST: Last<String> = const { RefCell::new(None) });
    recall(&LAST, spec, || {
        let table = compile(spec)?;
        let top = top_verilog_of(spec, &table)?;
        let core = core_verilog_of(spec, table)?;
        Ok(format!("{top}\n{core}"))
    })
}

/// `max(1, ceil(log2 V))`, the width of the `*_vc` ports.
pub fn vc_bits(vcs: u32) -> u32 {
    crate::interface::vc_bits(vcs)
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
    tera::Tera::one_off(TOP_TEMPLATE, &ctx, false).map_err(|e| Error::template("router top", &e))
}

#[cfg(test)]
pub(crate) mod tests;
