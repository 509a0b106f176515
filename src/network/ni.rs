//! The network interface of each node: AXI4-Stream in and out, packets of
//! head, body and tail flits toward the router's local port
//! (templates/network/ni.v.tera; docs/network.md, "Endpoints").
//!
//! A packet is a head flit (the routing field toward TDEST as
//! [`crate::interface::HeadFormat`] defines it, then the source's node id,
//! then where needed an acknowledgement mark) and one flit per beat.
//! Packets between one source and one destination leave in order:
//! where the relation offers one output and one VC at every hop
//! ([`preserves_order`]) because they share every buffer on the way;
//! elsewhere because a source waits for the destination to acknowledge
//! the previous packet before it sends the next one there.

use crate::algo::{Dir, Input, Network, Port, Relation};
use crate::error::{Error, Result};
use crate::interface::{bits_for, coord_bits, index_bits, vc_bits, HeadFormat};
use crate::spec::{Addressing, FlowControl, RouterSpec, Topology};

/// Whether every packet between two nodes follows one path on one VC per
/// link: the relation permits exactly one (port, VC) at every node, on
/// every input, toward every destination. Two packets of one pair then
/// pass through the same buffers in turn, and cannot overtake.
pub fn preserves_order(rel: &Relation) -> bool {
    let net = &rel.net;
    let mut inputs = vec![Input::INJECTED];
    for dim in 0..net.n() {
        for dir in [Dir::Plus, Dir::Minus] {
            for vc in 0..rel.vcs {
                inputs.push(Input {
                    port: Port::link(dim, dir),
                    vc,
                });
            }
        }
    }
    let mut hops = Vec::new();
    for node in 0..net.nodes() {
        for dest in (0..net.nodes()).filter(|&d| d != node) {
            for &input in &inputs {
                rel.route(node, input, dest, &mut hops);
                if hops.len() > 1 {
                    return false;
                }
            }
        }
    }
    true
}

/// The head flit's layout: the routing field, the source's node id above
/// it, and the acknowledgement mark above that where there is one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HeadLayout {
    /// Bits of the routing field (address fields and any look-ahead field).
    pub route_bits: u32,
    /// Bits of a node id (coordinates, dimension 0 lowest).
    pub node_bits: u32,
    /// Whether the head carries an acknowledgement mark.
    pub acks: bool,
}

impl HeadLayout {
    /// Bits the head flit needs.
    pub fn bits(&self) -> u32 {
        self.route_bits + self.node_bits + u32::from(self.acks)
    }
}

/// The interface's choices for `spec`: its head layout, and whether it
/// acknowledges packets; an error when the flit is too narrow for them.
pub fn layout(spec: &RouterSpec) -> Result<HeadLayout> {
    let net = Network::new(spec.topology, spec.dims, spec.radix)?;
    let rel = Relation::new(spec.algorithm, net, spec.vcs)?;
    let layout = HeadLayout {
        route_bits: spec.header_bits(),
        node_bits: spec.dims * coord_bits(spec.topology, spec.radix),
        acks: !preserves_order(&rel),
    };
    if layout.bits() > spec.flit_width {
        return Err(Error::InvalidSpec(format!(
            "flit_width = {} is too narrow for the network interface's head flit: the \
             routing field ({} bits), the source node ({} bits){} take {} bits; allowed: \
             flit_width >= {}, or endpoints = flits",
            spec.flit_width,
            layout.route_bits,
            layout.node_bits,
            if layout.acks {
                " and the acknowledgement mark (1 bit)"
            } else {
                ""
            },
            layout.bits(),
            layout.bits()
        )));
    }
    Ok(layout)
}

const TEMPLATE: &str = include_str!("../../templates/network/ni.v.tera");

/// The interface's modules for `spec`, named `<ni>`, `<ni>_route` and
/// `<ni>_queue`.
pub fn verilog(spec: &RouterSpec, ni: &str) -> Result<String> {
    let layout = layout(spec)?;
    let format = HeadFormat::of(spec);
    let cb = coord_bits(spec.topology, spec.radix);
    let nb = layout.node_bits;
    let (v, d) = (spec.vcs, spec.buffer_depth);
    let vb = vc_bits(v);
    let (field_kind, field_rule) = match (spec.addressing, spec.topology) {
        (Addressing::Absolute, _) => ("absolute", "each field the destination's coordinate"),
        (Addressing::Relative, Topology::Hypercube) => {
            ("hypercube", "each field 1 where the coordinates differ")
        }
        (Addressing::Relative, Topology::Mesh) => (
            "mesh",
            "each field the offset dest - here, two's complement",
        ),
        (Addressing::Relative, Topology::Torus) => (
            "torus",
            "each field the shorter offset around the ring, +k/2 on a tie, two's complement",
        ),
        (Addressing::Relative, Topology::UniTorus) => (
            "unitorus",
            "each field the hops left toward +, (dest - here) mod k, unsigned",
        ),
    };
    // Node ids index the acknowledgement flags directly.
    let node_space = 1u64 << nb;
    let nodes = Network::new(spec.topology, spec.dims, spec.radix)?.nodes();
    let mut ctx = tera::Context::new();
    ctx.insert("ni", ni);
    ctx.insert("w", &spec.flit_width);
    ctx.insert("v", &v);
    ctx.insert("vb", &vb);
    ctx.insert("depth", &d);
    ctx.insert("nb", &nb);
    ctx.insert("coord_bits", &cb);
    ctx.insert("dims", &spec.dims);
    ctx.insert("radix", &spec.radix);
    ctx.insert("half", &(spec.radix / 2));
    ctx.insert("field_bits", &format.field_bits());
    ctx.insert("address_bits", &format.address_bits());
    ctx.insert("header_bits", &layout.route_bits);
    ctx.insert("field_kind", field_kind);
    ctx.insert("field_rule", field_rule);
    ctx.insert("acks", &layout.acks);
    // The head flit's bits above its fields, written zero.
    ctx.insert("head_pad", &(spec.flit_width - layout.bits()));
    ctx.insert("on_off", &(spec.flow_control == FlowControl::OnOff));
    ctx.insert("queue_bits", &bits_for(d));
    ctx.insert("queue_slot_bits", &index_bits(d));
    ctx.insert("order_fill_bits", &bits_for(v * d));
    ctx.insert("order_slot_bits", &index_bits(v * d));
    ctx.insert("ack_slots", &nodes);
    ctx.insert("ack_fill_bits", &bits_for(nodes));
    ctx.insert("ack_slot_bits", &index_bits(nodes));
    ctx.insert("node_space", &node_space);
    ctx.insert("dest_vc", &dest_vc(v, vb));
    tera::Tera::one_off(TEMPLATE, &ctx, false).map_err(|e| Error::template("network interface", &e))
}

/// The VC a packet toward `s_axis_tdest` is injected on where the relation
/// keeps order: the destination's id modulo V (each pair keeps one VC;
/// the destinations share them out).
fn dest_vc(v: u32, vb: u32) -> String {
    let low = format!("s_axis_tdest[{}:0]", vb - 1);
    if v == 1 {
        "1'b0".into()
    } else if v.is_power_of_two() {
        low
    } else {
        // V < 2^VB < 2V: one subtraction brings the low bits below V.
        format!("{low} < {vb}'d{v} ? {low} : {low} - {vb}'d{v}")
    }
}
