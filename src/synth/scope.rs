//! What `routergen synth` measures of a spec: its router; the router, its
//! network interface (AXI4-Stream endpoint, docs/network.md) and the two
//! together as one node; or the whole network with its endpoints.

use serde::Serialize;

use crate::error::{Error, Result};
use crate::network::{self, ni, NetworkParams};
use crate::router;
use crate::spec::names::named_enum;
use crate::spec::RouterSpec;

named_enum!(
    /// The designs `routergen synth` measures for a spec.
    Scope, "scope", {
        /// The router (with the per-block breakdown).
        Router => "router" [],
        /// The router, its network interface, and the two as one node.
        Interface => "interface" ["ni"],
        /// The spec's whole network with AXI4-Stream endpoints.
        Network => "network" [],
    }
);

/// A design to synthesize: its Verilog and its top module.
#[derive(Debug, Clone)]
pub struct Design {
    /// What it is, for the report (`router`, `network interface`, ...).
    pub what: &'static str,
    /// The file its Verilog goes to in the work directory.
    pub file: &'static str,
    /// Every module it needs.
    pub verilog: String,
    /// Its top module.
    pub top: String,
}

/// Where a design other than the router goes.
const DESIGN_FILE: &str = "design.v";

impl Design {
    /// The router of `spec`, its Verilog in `router.v`.
    pub fn router(spec: &RouterSpec) -> Result<Design> {
        Ok(Design {
            what: "router",
            file: "router.v",
            verilog: router::verilog(spec)?,
            top: spec.name(),
        })
    }
}

const NODE_TEMPLATE: &str = include_str!("../../templates/synth/node.v.tera");

/// The designs of `scope` for `spec`, in the order the report lists them.
pub fn designs(spec: &RouterSpec, scope: Scope) -> Result<Vec<Design>> {
    let router = Design::router(spec)?;
    match scope {
        Scope::Router => Ok(vec![router]),
        Scope::Network => {
            // AXI4-Stream endpoints, no link stages.
            Ok(vec![Design {
                what: "network",
                file: DESIGN_FILE,
                verilog: network::verilog(spec, &NetworkParams::default())?,
                top: network::top_name(spec),
            }])
        }
        Scope::Interface => {
            let ni_name = network::ni_name(spec);
            let interface = Design {
                what: "network interface",
                file: DESIGN_FILE,
                verilog: ni::verilog(spec, &ni_name)?,
                top: ni_name.clone(),
            };
            let node_name = format!("{}_node", network::top_name(spec));
            let node = node_verilog(spec, &router.verilog, &ni_name, &node_name)?;
            let both = Design {
                what: "router + interface",
                file: DESIGN_FILE,
                verilog: format!("{}\n{}\n{node}", router.verilog, interface.verilog),
                top: node_name,
            };
            Ok(vec![router, interface, both])
        }
    }
}

/// The node module `top`: the router (whose Verilog is `router_verilog`)
/// with the interface `ni` on its local port.
fn node_verilog(spec: &RouterSpec, router_verilog: &str, ni: &str, top: &str) -> Result<String> {
    #[derive(Serialize)]
    struct Port {
        dir: &'static str,
        width: u32,
        name: String,
    }
    let name = spec.name();
    let ports = crate::emit::module_ports(router_verilog, &name)
        .ok_or_else(|| Error::Internal(format!("no port list of module {name}")))?;
    let has_node = ports.iter().any(|(n, _, _)| n == "node_id");
    // The router's ports but the clock, reset, node id and local port.
    let passed: Vec<Port> = ports
        .into_iter()
        .filter(|(n, _, _)| {
            !matches!(n.as_str(), "clk" | "rst" | "node_id") && !n.starts_with("p0_")
        })
        .map(|(n, input, width)| Port {
            dir: if input { "input" } else { "output" },
            width,
            name: n,
        })
        .collect();
    let layout = ni::layout(spec)?;
    let mut ctx = tera::Context::new();
    ctx.insert("top", top);
    ctx.insert("router", &name);
    ctx.insert("ni", ni);
    ctx.insert("nb", &layout.node_bits);
    ctx.insert("w", &spec.flit_width);
    ctx.insert("v", &spec.vcs);
    ctx.insert("vb", &router::vc_bits(spec.vcs));
    ctx.insert("has_node", &has_node);
    ctx.insert("ports", &passed);
    tera::Tera::one_off(NODE_TEMPLATE, &ctx, false).map_err(|e| Error::template("node", &e))
}
