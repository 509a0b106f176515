//! Chien's cost and speed model (Hot Interconnects 1993, §3-5).
//!
//! A router is an inventory of modules (how many crossbars, flow-control
//! units, address decoders, routing arbiters, header selectors and VC
//! controllers, with which P, F and V) plus two critical paths: connection
//! setup and the flow-control cycle. Module gate counts follow Figure 4,
//! module delays Figure 2 with the constants of Figure 3.

pub mod paper;
pub mod tech;

use serde::Serialize;

use crate::algo::ChienModel;
use crate::spec::{Adaptivity, Algorithm, Datapath, RouterSpec, Topology};
pub use tech::Technology;

/// The modules of Chien's canonical router (Figure 1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Module {
    /// Computes the candidate outputs from the header (T_AD).
    AddressDecoder,
    /// Picks one output among the candidates (T_ARB, grows with F).
    RoutingArbiter,
    /// Selects the updated header of the chosen output (T_SEL, grows with F).
    HeaderSelector,
    /// Connects inputs to outputs (T_CB, grows with P).
    Crossbar,
    /// Buffers flits and tracks the downstream buffer (T_FC).
    FlowControlUnit,
    /// Multiplexes virtual channels onto a physical channel (T_VC, grows with V).
    VcController,
}

impl Module {
    /// The abbreviation Chien uses for the module's delay (T_AD, T_ARB, ...).
    pub fn abbrev(self) -> &'static str {
        match self {
            Module::AddressDecoder => "AD",
            Module::RoutingArbiter => "ARB",
            Module::HeaderSelector => "SEL",
            Module::Crossbar => "CB",
            Module::FlowControlUnit => "FC",
            Module::VcController => "VC",
        }
    }

    /// The module's name in reports.
    pub fn title(self) -> &'static str {
        match self {
            Module::AddressDecoder => "address decoder",
            Module::RoutingArbiter => "routing arbiter",
            Module::HeaderSelector => "header selector",
            Module::Crossbar => "crossbar",
            Module::FlowControlUnit => "flow-control unit",
            Module::VcController => "VC controller",
        }
    }

    /// The parameter the module grows with (Figure 2), if any.
    pub fn parameter_name(self) -> Option<&'static str> {
        match self {
            Module::Crossbar => Some("P"),
            Module::RoutingArbiter | Module::HeaderSelector => Some("F"),
            Module::VcController => Some("V"),
            Module::AddressDecoder | Module::FlowControlUnit => None,
        }
    }

    /// Gate count of one module (Figure 4).
    pub fn gates(self, tech: &Technology, param: u32) -> f64 {
        let g = &tech.gates;
        let x = param as f64;
        match self {
            Module::Crossbar => g.crossbar_per_port_squared * x * x,
            Module::FlowControlUnit => g.flow_control_unit,
            Module::AddressDecoder => g.address_decoder,
            Module::RoutingArbiter => g.routing_decision_per_freedom_squared * x * x,
            Module::HeaderSelector => g.header_selector_per_freedom * x,
            Module::VcController => g.vc_controller_per_vc * x,
        }
    }

    /// Delay of one module in ns (Figure 2; logarithms base 2, which the
    /// 5.6 ns dimension-order setup delay of §5.1 confirms).
    pub fn delay_ns(self, tech: &Technology, param: u32) -> f64 {
        let c = &tech.delay_ns;
        let lg = (param.max(1) as f64).log2();
        match self {
            Module::Crossbar => c.c0 + c.c1 * lg,
            Module::FlowControlUnit => c.c2,
            Module::AddressDecoder => c.c3,
            Module::RoutingArbiter => c.c4 + c.c5 * lg,
            Module::HeaderSelector => c.c6 + c.c7 * lg,
            Module::VcController => c.c8 + c.c9 * lg,
        }
    }
}

/// What the model needs to know about a router.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct ModelInput {
    /// The routing algorithm.
    pub algorithm: Algorithm,
    /// The topology.
    pub topology: Topology,
    /// Dimensions n.
    pub dims: u32,
    /// Virtual channels per physical channel; 1 means no VC controller
    /// (Chien's V = 0).
    pub vcs: u32,
}

impl ModelInput {
    /// The model's input for a resolved spec.
    pub fn from_spec(spec: &RouterSpec) -> Self {
        ModelInput {
            algorithm: spec.algorithm,
            topology: spec.topology,
            dims: spec.dims,
            vcs: spec.vcs,
        }
    }

    /// The virtual channels Chien's §5 assumes for each algorithm he studies
    /// (dimension order and turn model none, planar-adaptive 3, *-channels
    /// 2: [`ChienModel::Studied`]); for the others, the deadlock minimum.
    pub fn chien_vcs(algorithm: Algorithm, topology: Topology, dims: u32) -> u32 {
        match algorithm.routing().chien() {
            ChienModel::Studied { vcs, .. } => vcs,
            ChienModel::CostedAs { .. } => algorithm.min_vcs(topology, dims),
        }
    }

    fn has_vc_controllers(&self) -> bool {
        self.vcs >= 2
    }
}

/// One line of the inventory: `count` copies of `module` with parameter `param`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ModuleUse {
    /// The module.
    pub module: Module,
    /// How many copies.
    pub count: u32,
    /// P, F or V, where the module has a parameter.
    pub param: Option<u32>,
    /// Gates of one copy (Figure 4).
    pub gates_each: f64,
    /// Gates of all copies.
    pub gates: f64,
    /// Delay of one copy in ns (Figure 2).
    pub delay_ns: f64,
}

/// One step of a critical path.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Step {
    /// The module.
    pub module: Module,
    /// P, F or V, where the module has a parameter.
    pub param: Option<u32>,
    /// Its delay in ns.
    pub delay_ns: f64,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
/// A critical path: its modules in order and their summed delay.
pub struct CriticalPath {
    /// Summed delay in ns.
    pub total_ns: f64,
    /// The modules on the path, in order.
    pub steps: Vec<Step>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
/// The router's gate count.
pub struct Gates {
    /// Gates of all modules.
    pub total: f64,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
/// The two critical-path delays Chien §3.1 names, in ns.
pub struct Delays {
    /// Connection setup delay (Chien §3.1, "routing latency").
    pub setup: f64,
    /// Flow-control cycle time (Chien §3.1, "flow control latency").
    pub flow_control: f64,
}

/// The model's verdict on one router.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CostReport {
    /// What was evaluated.
    pub input: ModelInput,
    /// The technology's name.
    pub technology: String,
    /// Chien's datapath organization for the algorithm.
    pub datapath: Datapath,
    /// The inventory, one line per module kind.
    pub modules: Vec<ModuleUse>,
    /// Total gates.
    pub gates: Gates,
    /// Setup and flow-control delays.
    pub delay_ns: Delays,
    /// The connection-setup path, step by step.
    pub setup_path: CriticalPath,
    /// The flow-control cycle, step by step.
    pub flow_control_path: CriticalPath,
    /// Flits per second per channel that the flow-control cycle allows, in millions.
    pub flit_rate_mflits: f64,
    /// Remarks for the reader (assumptions, departures from the paper).
    pub notes: Vec<String>,
}

/// `(module, count, param)` for one router, following Chien's figures.
///
/// The counts are the ones that reproduce Figure 10 exactly:
/// - dimension order, per dimension: a PxP crossbar (P = 3), one routing
///   decision with F = P, and P address decoders and flow-control units
///   (1,674 gates per dimension);
/// - planar-adaptive, per slice: a 4x4 crossbar, a routing decision (F = 4),
///   4 address decoders and flow-control units, and 2 VC controllers, one
///   per physical output of the slice (3,172 gates per slice, n slices);
/// - turn model: one (2n+1)-port crossbar and routing decision, and an
///   address decoder and flow-control unit per port;
/// - *-channels (and Duato, the same organization, Chien §5.4): one
///   (4n+1)-port crossbar and routing decision, an address decoder and
///   flow-control unit per port, and 2n+1 VC controllers.
///
/// Where Chien's router has no VCs but the spec asks for them (virtual
/// lanes, or dateline VCs on a torus), VC controllers are added in the same
/// way as for the adaptive routers: one per physical output.
pub fn inventory(input: &ModelInput) -> Vec<(Module, u32, Option<u32>)> {
    let org = input.algorithm.organization(input.topology, input.dims);
    let p = org.ports;
    let f = org.freedom;
    let v = input.vcs;
    let adaptive = input.algorithm.adaptivity() != Adaptivity::Deterministic;
    let links_per_dim = input.topology.links_per_dim();
    let vc_per_crossbar = match org.datapath {
        Datapath::DimensionSlices | Datapath::PlaneSlices => links_per_dim,
        Datapath::Unified => links_per_dim * input.dims + 1,
    };
    let k = org.crossbars;
    let mut items = vec![
        (Module::Crossbar, k, Some(p)),
        (Module::RoutingArbiter, k, Some(f)),
        (Module::AddressDecoder, k * p, None),
        (Module::FlowControlUnit, k * p, None),
    ];
    if adaptive {
        items.push((Module::HeaderSelector, k * p, Some(f)));
    }
    if input.has_vc_controllers() {
        items.push((Module::VcController, k * vc_per_crossbar, Some(v)));
    }
    items
}

/// Evaluates the model for one router.
pub fn evaluate(input: &ModelInput, tech: &Technology) -> CostReport {
    let org = input.algorithm.organization(input.topology, input.dims);
    let modules: Vec<ModuleUse> = inventory(input)
        .into_iter()
        .map(|(module, count, param)| {
            let x = param.unwrap_or(0);
            let gates_each = module.gates(tech, x);
            ModuleUse {
                module,
                count,
                param,
                gates_each,
                gates: gates_each * count as f64,
                delay_ns: module.delay_ns(tech, x),
            }
        })
        .collect();
    let total: f64 = modules.iter().map(|m| m.gates).sum();

    let step = |module: Module, param: Option<u32>| Step {
        module,
        param,
        delay_ns: module.delay_ns(tech, param.unwrap_or(0)),
    };
    // §5: setup = T_AD + T_ARB + T_SEL + T_CB + T_VC, where header selection
    // appears only in adaptive routers (they pick one of F updated headers)
    // and T_VC only where virtual channels exist.
    let adaptive = input.algorithm.adaptivity() != Adaptivity::Deterministic;
    let vc = input.has_vc_controllers().then_some(input.vcs);
    let mut setup = vec![
        step(Module::AddressDecoder, None),
        step(Module::RoutingArbiter, Some(org.freedom)),
    ];
    if adaptive {
        setup.push(step(Module::HeaderSelector, Some(org.freedom)));
    }
    setup.push(step(Module::Crossbar, Some(org.ports)));
    // §3.1: flow control = T_FC + T_CB + T_VC.
    let mut fc = vec![
        step(Module::FlowControlUnit, None),
        step(Module::Crossbar, Some(org.ports)),
    ];
    if let Some(v) = vc {
        setup.push(step(Module::VcController, Some(v)));
        fc.push(step(Module::VcController, Some(v)));
    }
    let path = |steps: Vec<Step>| CriticalPath {
        total_ns: steps.iter().map(|s| s.delay_ns).sum(),
        steps,
    };
    let setup_path = path(setup);
    let flow_control_path = path(fc);

    let mut notes = Vec::new();
    let min = input.algorithm.min_vcs(input.topology, input.dims);
    if input.vcs < min {
        notes.push(format!(
            "V = {} is below the {} virtual channels {} needs for deadlock freedom on a {}; \
             the model evaluates it as asked",
            input.vcs, min, input.algorithm, input.topology
        ));
    }
    if let ChienModel::CostedAs { like, section } = input.algorithm.routing().chien() {
        notes.push(format!(
            "Chien does not model {}; it is costed with the organization of {like} (§5.{section})",
            input.algorithm
        ));
    }

    CostReport {
        input: *input,
        technology: tech.name.clone(),
        datapath: org.datapath,
        gates: Gates { total },
        delay_ns: Delays {
            setup: setup_path.total_ns,
            flow_control: flow_control_path.total_ns,
        },
        flit_rate_mflits: 1000.0 / flow_control_path.total_ns,
        setup_path,
        flow_control_path,
        modules,
        notes,
    }
}

impl CostReport {
    /// A plain-text table for the terminal.
    pub fn to_text(&self) -> String {
        use std::fmt::Write;
        let i = &self.input;
        let mut s = String::new();
        let _ = writeln!(
            s,
            "Chien cost and speed model ({}): {}, {}-D {}, V = {}",
            self.technology, i.algorithm, i.dims, i.topology, i.vcs
        );
        let _ = writeln!(
            s,
            "{:<18} {:>6} {:>7} {:>11} {:>10} {:>9}",
            "module", "count", "param", "gates each", "gates", "delay ns"
        );
        for m in &self.modules {
            let param = match (m.module.parameter_name(), m.param) {
                (Some(n), Some(v)) => format!("{n}={v}"),
                _ => "-".into(),
            };
            let _ = writeln!(
                s,
                "{:<18} {:>6} {:>7} {:>11} {:>10} {:>9.3}",
                m.module.title(),
                m.count,
                param,
                fmt_gates(m.gates_each),
                fmt_gates(m.gates),
                m.delay_ns
            );
        }
        let _ = writeln!(s, "total gates: {}", fmt_gates(self.gates.total));
        let _ = writeln!(s, "setup delay: {}", path_text(&self.setup_path));
        let _ = writeln!(
            s,
            "flow-control cycle: {}",
            path_text(&self.flow_control_path)
        );
        let _ = writeln!(
            s,
            "flit rate: {:.1} Mflit/s per channel",
            self.flit_rate_mflits
        );
        for n in &self.notes {
            let _ = writeln!(s, "note: {n}");
        }
        s
    }
}

fn path_text(p: &CriticalPath) -> String {
    let terms: Vec<String> = p
        .steps
        .iter()
        .map(|s| format!("{} {:.3}", s.module.abbrev(), s.delay_ns))
        .collect();
    format!("{:.3} ns = {}", p.total_ns, terms.join(" + "))
}

/// Gate counts are whole numbers with Chien's constants; other technologies
/// may give fractions.
pub fn fmt_gates(g: f64) -> String {
    if g.fract() == 0.0 {
        format!("{}", g as i64)
    } else {
        format!("{g:.1}")
    }
}
