//! A whole network of generated routers as one Verilog top module: every
//! node an instance of the same router module, the links wired as
//! docs/interface.md numbers the ports ([`crate::algo::numbering`] and
//! [`crate::interface`] are the single source), the ports of a mesh that
//! leave the network tied off, an optional register stage on each link,
//! and at each router's local port a network interface with AXI4-Stream
//! ports ([`ni`]), or the local port itself (docs/network.md).

pub mod files;
pub mod ni;
mod picture;
pub mod replay;

use serde::Serialize;

use crate::algo::numbering::{far_port, in_port_at};
use crate::algo::{Network, NodeId};
use crate::error::{Error, Result};
use crate::limits::MAX_LINK_STAGES;
use crate::spec::names::named_enum;
use crate::spec::{FlowControl, RouterSpec};

/// What the network adds to its router's spec.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct NetworkParams {
    /// Register stages on each link, each way (0: wires).
    pub link_stages: u32,
    /// What each node's local port is at the network's boundary.
    pub endpoints: Endpoints,
}

named_enum!(
    /// A node's endpoint: what the network offers at each router's local port.
    Endpoints, "endpoints", {
        /// A network interface with an AXI4-Stream slave (injection) and
        /// master (ejection) ([`ni`]).
        AxiStream => "axi-stream" ["axis"],
        /// The router's local port itself: flits, VCs and credits
        /// (docs/interface.md).
        Flits => "flits" [],
    }
);

// `named_enum!` fixes the enum's derives, so Default is written here.
#[allow(clippy::derivable_impls)]
impl Default for Endpoints {
    fn default() -> Self {
        Endpoints::AxiStream
    }
}

/// One directed link: into port `to` (n P + p) from port `from`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Link {
    /// The receiving port, n P + p.
    pub to: usize,
    /// The sending port, n' P + p'.
    pub from: usize,
    /// The receiving node n.
    pub to_node: u32,
    /// Its port p.
    pub to_port: usize,
    /// The sending node n'.
    pub from_node: u32,
    /// Its port p' (the far port of p).
    pub from_port: usize,
}

/// The network top module's name for `spec` (`network_<router name
/// without "router_">`).
pub fn top_name(spec: &RouterSpec) -> String {
    let name = spec.name();
    format!(
        "network_{}",
        name.strip_prefix("router_").unwrap_or(name.as_str())
    )
}

/// The network interface module's name for `spec` ([`ni`]).
pub fn ni_name(spec: &RouterSpec) -> String {
    format!("{}_ni", top_name(spec))
}

/// Every link of `net` (routers of `ports` ports), by receiving port:
/// node n's link port p receives what the router across it sends on the
/// far port (docs/interface.md, "Ports"); a mesh port that leaves the
/// network has none.
pub fn links(net: &Network, ports: usize) -> Vec<Link> {
    let mut out = Vec::new();
    for n in 0..net.nodes() {
        let node: NodeId = n;
        for p in 1..ports {
            if let Some(m) = net.sender(node, in_port_at(net, node, p)) {
                let f = far_port(net.topology, p);
                out.push(Link {
                    to: n as usize * ports + p,
                    from: m as usize * ports + f,
                    to_node: n,
                    to_port: p,
                    from_node: m,
                    from_port: f,
                });
            }
        }
    }
    out
}

/// Checks the network's own parameters against `spec`.
pub fn check(spec: &RouterSpec, params: &NetworkParams) -> Result<()> {
    if params.link_stages > MAX_LINK_STAGES {
        return Err(Error::InvalidSpec(format!(
            "link_stages = {} is out of range: 0 to {MAX_LINK_STAGES}",
            params.link_stages
        )));
    }
    if params.link_stages > 0 && spec.flow_control == FlowControl::OnOff {
        return Err(Error::InvalidSpec(format!(
            "link_stages = {} with on/off flow control: its off level leaves room for the \
             flits of one link's round trip without stages; use credit flow control, or 0 stages",
            params.link_stages
        )));
    }
    Ok(())
}

const TEMPLATE: &str = include_str!("../../templates/network/network.v.tera");

/// The Verilator configuration of a network's simulations (the cocotb
/// testbench's, the replay's): the router a hierarchical block, Verilated
/// once for every node. Its context names the router (`router`).
const HIER_CONFIG: &str = include_str!("../../templates/network/hier.vlt.tera");

/// The network's Verilog: the router's modules, then the network top
/// module [`top_name`] and its link module, then (AXI4-Stream endpoints)
/// the network interface's modules ([`ni::verilog`]).
pub fn verilog(spec: &RouterSpec, params: &NetworkParams) -> Result<String> {
    check(spec, params)?;
    crate::router::supported(spec)?;
    let table = crate::router::compile(spec)?;
    let net = Network::new(spec.topology, spec.dims, spec.radix)?;
    let ports = spec.physical_ports() as usize;
    if table.ports() != ports {
        return Err(Error::Internal(format!(
            "the router has {} ports at its top, the network {ports}",
            table.ports()
        )));
    }
    let router = crate::router::verilog(spec)?;
    let top = top_name(spec);
    let axi = params.endpoints == Endpoints::AxiStream;
    let ni_name = ni_name(spec);
    let interface = if axi {
        ni::verilog(spec, &ni_name)?
    } else {
        String::new()
    };
    let mut ctx = tera::Context::new();
    ctx.insert("top", &top);
    ctx.insert("link_module", &format!("{top}_link"));
    ctx.insert("router", &spec.name());
    ctx.insert("shape", &shape(spec));
    ctx.insert("nodes", &net.nodes());
    ctx.insert("radix", &spec.radix);
    ctx.insert("ports", &ports);
    ctx.insert("port_list", &(0..ports).collect::<Vec<_>>());
    ctx.insert("w", &spec.flit_width);
    ctx.insert("v", &spec.vcs);
    ctx.insert("vb", &crate::router::vc_bits(spec.vcs));
    ctx.insert("stages", &params.link_stages);
    ctx.insert("links", &links(&net, ports));
    let node_bits = crate::router::node_id_bits_of(&table);
    ctx.insert("has_node", &node_bits.is_some());
    ctx.insert("node_bits", &node_bits.unwrap_or(0));
    let coord_bits = crate::interface::coord_bits(spec.topology, spec.radix);
    ctx.insert("coord_bits", &coord_bits);
    let nb = spec.dims * coord_bits;
    ctx.insert("nb", &nb);
    #[derive(Serialize)]
    struct NodeIdRow {
        node: u32,
        id: String,
        id_text: String,
    }
    let ids: Vec<NodeIdRow> = (0..net.nodes())
        .map(|n| {
            let id = crate::interface::node_id(&net, coord_bits, n);
            NodeIdRow {
                node: n,
                id: format!("{id:x}"),
                id_text: format!("{nb}'h{id:x}, coordinates {}", net.node_name(n)),
            }
        })
        .collect();
    ctx.insert("node_ids", &ids);
    ctx.insert("node_list", &ids);
    ctx.insert("axi", &axi);
    ctx.insert("ni", &ni_name);
    // The endpoints' ports gathered into vectors, node 0 lowest.
    let gather =
        |f: &dyn Fn(u32) -> String| (0..net.nodes()).rev().map(f).collect::<Vec<_>>().join(", ");
    ctx.insert("s_tdata", &gather(&|n| format!("n{n}_s_axis_tdata")));
    ctx.insert("s_tvalid", &gather(&|n| format!("n{n}_s_axis_tvalid")));
    ctx.insert("s_tlast", &gather(&|n| format!("n{n}_s_axis_tlast")));
    ctx.insert("s_tdest", &gather(&|n| format!("n{n}_s_axis_tdest")));
    ctx.insert("m_tready", &gather(&|n| format!("n{n}_m_axis_tready")));
    let es = table.es.as_ref();
    ctx.insert("has_table", &es.is_some());
    ctx.insert("addr_bits", &es.map_or(1, |t| t.addr_bits()));
    ctx.insert("class_bits", &es.map_or(1, |t| t.class_bits()));
    let text = tera::Tera::one_off(TEMPLATE, &ctx, false)
        .map_err(|e| Error::template("network top", &e))?;
    Ok(format!(
        "{router}\n{text}{}",
        if axi {
            format!("\n{interface}")
        } else {
            String::new()
        }
    ))
}

/// The network in words: "4-ary 2-D mesh", "binary 3-cube".
fn shape(spec: &RouterSpec) -> String {
    use crate::spec::Topology;
    match spec.topology {
        Topology::Hypercube => format!("binary {}-cube", spec.dims),
        t => format!(
            "{}-ary {}-D {}",
            spec.radix,
            spec.dims,
            match t {
                Topology::Torus => "torus",
                Topology::UniTorus => "unidirectional torus",
                _ => "mesh",
            }
        ),
    }
}
