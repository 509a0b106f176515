//! The router specification: what the user asks for, resolved and validated.
//!
//! Input arrives as a [`SpecInput`] (every field optional) from a TOML file
//! and from command-line flags; flags override the file. [`SpecInput::resolve`]
//! fills in defaults and validates everything before any file is written,
//! giving a [`RouterSpec`] that the rest of routergen reads and never
//! re-checks. This layer knows nothing of hardware. Its messages name each
//! parameter as the TOML file does (`dims = 40 is out of range`); the
//! command line adds the flags that set them.

pub mod algorithm;
pub mod names;

use std::path::Path;

use serde::{Deserialize, Serialize};

pub use algorithm::{Adaptivity, Algorithm, Datapath, Organization};
use names::{named_enum, one_of};

use crate::error::{Error, Result};

named_enum!(
    /// Network topology.
    Topology, "topology", {
        /// A k-ary n-cube without wraparound channels.
        Mesh => "mesh" [],
        /// k-ary n-cube with wraparound channels.
        Torus => "torus" ["k-ary-n-cube"],
        /// Binary n-cube (k = 2).
        Hypercube => "hypercube" ["binary-n-cube"],
    }
);

named_enum!(
    /// How a head flit names its destination.
    Addressing, "addressing", {
        /// Per-dimension signed offsets, updated at every hop (Chien §3).
        Relative => "relative" [],
        /// Destination coordinates, compared with a node-id register (LAPSES §5.2.1).
        Absolute => "absolute" [],
    }
);

named_enum!(
    /// Path-selection heuristic among free candidate outputs (LAPSES §4.1).
    PathSelection, "path-selection heuristic", {
        /// Dimension order: the candidate in the lowest dimension (X first).
        StaticXy => "static-xy" ["static", "xy-first"],
        /// Least recently used: the candidate output port idle the longest.
        Lru => "lru" [],
        /// Least frequently used: the candidate output port used the fewest times.
        Lfu => "lfu" [],
        /// The candidate channel with the most credits, i.e. free downstream buffer slots.
        MaxCredit => "max-credit" [],
        /// The candidate physical channel with the fewest virtual channels in use
        /// (Duato's MIN-MUX, LAPSES §4.1).
        MinMux => "min-mux" [],
    }
);

named_enum!(
    /// Where the routing decision comes from (LAPSES §5).
    TableStorage, "routing-table storage", {
        /// No table: the address decoder computes candidates in logic (Chien).
        None => "none" ["algorithmic", "logic"],
        /// 3^n entries indexed by the sign vector of (destination - node id).
        Economical => "economical" ["es", "economical-storage"],
        /// One entry per destination node.
        Full => "full" ["full-table"],
        /// Two-level cluster / sub-cluster tables.
        Meta => "meta" ["meta-table"],
    }
);

named_enum!(
    /// How a meta table groups the nodes into clusters (LAPSES §5.2.2,
    /// Figure 8).
    MetaClusters, "meta-table clusters", {
        /// Whole dimensions form the cluster id: in 2-D each cluster is a
        /// row or a column (Figure 8(a), the paper's Meta-Tbl Det.).
        Rows => "rows" ["dimensions"],
        /// Every coordinate is split, x div b into the cluster id and x
        /// mod b into the sub-cluster id (k = b^2): each cluster is a
        /// square (Figure 8(b), the paper's Meta-Tbl Adp.).
        Squares => "squares" ["square"],
    }
);

named_enum!(
    /// How the router's datapath is organized (Chien §5): one crossbar
    /// from every input to every output, or small routers chained by
    /// flow-controlled channels, one per dimension (Figure 5) or per
    /// adaptive plane (Figure 6).
    RouterDatapath, "datapath", {
        /// One P x P crossbar (Chien §5.3, Figure 7; every algorithm).
        Unified => "unified" [],
        /// Dimension slices (Chien §5.1, Figure 5; dimension order) or
        /// plane slices (§5.2, Figure 6; planar-adaptive).
        Sliced => "sliced" ["slices", "dimension-slices"],
        /// A crossbar port per virtual channel and a VC controller per
        /// link (Chien §5.4, Figure 8; *-channels and Duato).
        VcPorts => "vc-ports" ["vc-crossbar", "class-ports"],
    }
);

named_enum!(
    /// Where the input buffers keep their flits.
    BufferStorage, "buffers", {
        /// Flip-flops, read through a multiplexer.
        Flops => "flops" ["ff", "registers"],
        /// Block RAM, one per input VC (iCE40 SB_RAM40_4K, ECP5 DP16KD),
        /// with a bypass register for the flit written into an empty
        /// buffer (`blocks::flow_control::ram`).
        Bram => "bram" ["ram", "block-ram"],
        /// Distributed RAM, the LUTs of the ECP5's RAM slices
        /// (TRELLIS_DPR16X4), read asynchronously like the flip-flops'
        /// multiplexer (`blocks::flow_control::ram`); the iCE40 has none.
        Lutram => "lutram" ["distributed", "lut-ram"],
    }
);

impl BufferStorage {
    /// The module-name suffix ([`RouterSpec::name`]): none for flip-flops.
    pub fn suffix(self) -> &'static str {
        match self {
            BufferStorage::Flops => "",
            BufferStorage::Bram => "_bram",
            BufferStorage::Lutram => "_lutram",
        }
    }
}

named_enum!(
    /// Link-level flow control.
    FlowControl, "flow control", {
        /// The sender counts free downstream buffer slots, one credit each.
        Credit => "credit" ["credits"],
        /// The receiver tells the sender to stop or go with a one-bit level per
        /// virtual channel ([`ON_OFF_ROUND_TRIP`]).
        OnOff => "on-off" ["xon-xoff", "onoff"],
    }
);

/// Flit widths the blocks are built for (rust-hdl widths are fixed at
/// compile time); a whole router takes [`crate::limits::ROUTER_FLIT_WIDTHS`].
pub const FLIT_WIDTHS: [u32; 4] = [8, 16, 32, 64];
pub use crate::limits::{
    MAX_BUFFER_DEPTH, MAX_DIMS, MAX_HYPERCUBE_DIMS, MAX_NODES, MAX_RADIX, MAX_VCS,
};
/// On/off flow control: the round trip of a level in cycles
/// (docs/interface.md): the level a receiver computes in cycle t is obeyed
/// by the sender from t + 1, so two flits can arrive beyond the occupancy
/// it was computed from; the receiver raises it while this many slots are
/// free, and needs at least this many.
pub const ON_OFF_ROUND_TRIP: u32 = 2;

/// A specification as given: every field optional. Read from TOML, whose
/// keys are the field names, and from the command line's flags
/// (`crate::commands::flags` tells which flag sets which field);
/// [`SpecInput::overlay`] lets flags win.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SpecInput {
    /// Network topology.
    pub topology: Option<Topology>,
    /// Dimensions n; signed so that a negative value gets a range message.
    pub dims: Option<i64>,
    /// Nodes per dimension k.
    pub radix: Option<i64>,
    /// Routing algorithm.
    pub algorithm: Option<Algorithm>,
    /// Crossbar ports P; must match the algorithm's organization.
    pub ports: Option<i64>,
    /// Virtual channels per physical channel.
    pub vcs: Option<i64>,
    /// Flit width in bits.
    pub flit_width: Option<i64>,
    /// Flit buffers per virtual channel.
    pub buffer_depth: Option<i64>,
    /// How the head flit names its destination.
    pub addressing: Option<Addressing>,
    /// Whether the head flit carries the next router's output ports (LAPSES §3).
    pub lookahead: Option<bool>,
    /// Path-selection heuristic among free candidates.
    pub path_selection: Option<PathSelection>,
    /// Where the routing decision comes from.
    pub table: Option<TableStorage>,
    /// How a meta table groups the nodes.
    pub meta_clusters: Option<MetaClusters>,
    /// Link-level flow control.
    pub flow_control: Option<FlowControl>,
    /// Datapath organization.
    pub datapath: Option<RouterDatapath>,
    /// Where the input buffers keep their flits.
    pub buffers: Option<BufferStorage>,
    /// Cycles from a head flit's arrival to its departure.
    pub pipeline: Option<i64>,
}

/// A resolved, validated specification. Every field is set; the invariants
/// checked by [`SpecInput::resolve`] hold.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RouterSpec {
    /// Network topology.
    pub topology: Topology,
    /// Dimensions n of the network.
    pub dims: u32,
    /// Nodes per dimension k (2 for a hypercube).
    pub radix: u32,
    /// Routing algorithm.
    pub algorithm: Algorithm,
    /// Crossbar ports P (per crossbar or slice).
    pub ports: u32,
    /// Virtual channels per physical channel.
    pub vcs: u32,
    /// Flit width in bits, one of [`crate::limits::ROUTER_FLIT_WIDTHS`].
    pub flit_width: u32,
    /// Flit buffers per virtual channel.
    pub buffer_depth: u32,
    /// How the head flit names its destination.
    pub addressing: Addressing,
    /// Whether the head flit carries the next router's output ports (LAPSES §3).
    pub lookahead: bool,
    /// Path-selection heuristic among free candidates (LAPSES §4.1).
    pub path_selection: PathSelection,
    /// Where the routing decision comes from (LAPSES §5).
    pub table: TableStorage,
    /// How a meta table groups the nodes into clusters (LAPSES Figure 8;
    /// rows unless the table is a meta table).
    pub meta_clusters: MetaClusters,
    /// Link-level flow control.
    pub flow_control: FlowControl,
    /// Datapath organization (Chien §5).
    pub datapath: RouterDatapath,
    /// Where the input buffers keep their flits.
    pub buffers: BufferStorage,
    /// Cycles from a head flit's arrival to its departure in an idle
    /// router: 2, or 1 (routed from its look-ahead field in the cycle it
    /// arrives, LAPSES §3.2).
    pub pipeline: u32,
}

/// A resolved spec together with the names of the fields that took defaults.
#[derive(Debug, Clone)]
pub struct Resolved {
    /// The resolved specification.
    pub spec: RouterSpec,
    /// Names of the fields that took their default, as spelled in TOML (`flit_width`, ...).
    pub defaulted: Vec<&'static str>,
}

impl SpecInput {
    /// Parses TOML text; `path` is only used in messages.
    pub fn from_toml(text: &str, path: &Path) -> Result<Self> {
        toml::from_str(text).map_err(|e| Error::toml(path, text, &e))
    }

    /// Reads and parses a TOML spec file; a read error names the path.
    pub fn from_file(path: &Path) -> Result<Self> {
        let text = std::fs::read_to_string(path).map_err(|source| Error::Read {
            path: path.to_path_buf(),
            source,
        })?;
        Self::from_toml(&text, path)
    }

    /// `self` with every field that `over` sets replaced by `over`'s value.
    pub fn overlay(self, over: SpecInput) -> SpecInput {
        SpecInput {
            topology: over.topology.or(self.topology),
            dims: over.dims.or(self.dims),
            radix: over.radix.or(self.radix),
            algorithm: over.algorithm.or(self.algorithm),
            ports: over.ports.or(self.ports),
            vcs: over.vcs.or(self.vcs),
            flit_width: over.flit_width.or(self.flit_width),
            buffer_depth: over.buffer_depth.or(self.buffer_depth),
            addressing: over.addressing.or(self.addressing),
            lookahead: over.lookahead.or(self.lookahead),
            path_selection: over.path_selection.or(self.path_selection),
            table: over.table.or(self.table),
            meta_clusters: over.meta_clusters.or(self.meta_clusters),
            flow_control: over.flow_control.or(self.flow_control),
            datapath: over.datapath.or(self.datapath),
            buffers: over.buffers.or(self.buffers),
            pipeline: over.pipeline.or(self.pipeline),
        }
    }

    /// Fills in defaults and validates. Sizes are checked first, then that
    /// the pieces fit together; the first problem found is reported.
    pub fn resolve(&self) -> Result<Resolved> {
        let mut defaulted = Vec::new();
        let mut pick = |name: &'static str, given: bool| {
            if !given {
                defaulted.push(name);
            }
        };

        let topology = self.topology.unwrap_or(Topology::Mesh);
        pick("topology", self.topology.is_some());
        let algorithm = self.algorithm.unwrap_or(Algorithm::DimensionOrder);
        pick("algorithm", self.algorithm.is_some());

        let dims = self.dims.unwrap_or(2);
        pick("dims", self.dims.is_some());
        let max_dims = crate::limits::max_dims(topology);
        let dims = in_range(
            "dims",
            dims,
            1,
            max_dims as i64,
            &format!("the dimensions n of a {topology} (docs/limits.md)"),
        )?;

        let default_radix = if topology == Topology::Hypercube {
            2
        } else {
            4
        };
        let radix = self.radix.unwrap_or(default_radix);
        pick("radix", self.radix.is_some());
        let radix = match topology {
            Topology::Hypercube if radix != 2 => {
                return Err(Error::invalid(format!(
                    "radix = {radix} does not fit a hypercube: a hypercube is a binary \
                     n-cube, radix 2 in every dimension; use topology = mesh or torus for \
                     radix {radix}"
                )))
            }
            Topology::Torus if radix == 2 => {
                return Err(Error::invalid(format!(
                    "radix = 2 is not allowed for a torus: its wraparound link would join \
                     the same two nodes as the direct link; allowed: 3 to {MAX_RADIX} (a \
                     2-ary torus is a hypercube: use topology = hypercube)"
                )))
            }
            _ => in_range("radix", radix, 2, MAX_RADIX as i64, "nodes per dimension k")?,
        };
        let nodes = (radix as u64).checked_pow(dims).unwrap_or(u64::MAX);
        if nodes > MAX_NODES {
            return Err(Error::invalid(format!(
                "a {radix}-ary {dims}-dimensional {topology} has {} nodes; routergen \
                 accepts networks of at most {MAX_NODES} nodes (docs/limits.md): lower \
                 radix = {radix} or dims = {dims}",
                if nodes == u64::MAX {
                    "more than 2^64".to_string()
                } else {
                    nodes.to_string()
                }
            )));
        }

        algorithm.supports(topology, dims).map_err(|why| {
            Error::invalid(format!(
                "algorithm = {algorithm} cannot route a {dims}-dimensional {topology}: {why}"
            ))
        })?;

        let org = algorithm.organization(topology, dims);
        let min_vcs = algorithm.min_vcs(topology, dims);
        let vcs = self.vcs.unwrap_or(min_vcs as i64);
        pick("vcs", self.vcs.is_some());
        let vcs = in_range(
            "vcs",
            vcs,
            1,
            MAX_VCS as i64,
            "virtual channels per physical channel",
        )?;
        if vcs < min_vcs {
            return Err(Error::invalid(format!(
                "{} on a {dims}-D {topology} needs at least {min_vcs} virtual channels per \
                 physical channel for deadlock freedom; got vcs = {vcs}. {}",
                algorithm_title(algorithm),
                vc_reason(algorithm, topology, dims)
            )));
        }

        let ports = match self.ports {
            None => {
                pick("ports", false);
                org.ports
            }
            Some(p) if p == org.ports as i64 => org.ports,
            Some(p) => {
                return Err(Error::invalid(format!(
                    "ports = {p} does not match {algorithm} on a {dims}-D {topology}: its \
                     datapath is {} of {ports}x{ports} ({}); allowed: ports = {ports}, or \
                     leave ports unset",
                    crossbar_count(org),
                    organization_reason(algorithm),
                    ports = org.ports
                )))
            }
        };

        let flit_width = self.flit_width.unwrap_or(16);
        pick("flit_width", self.flit_width.is_some());
        let widths = crate::limits::ROUTER_FLIT_WIDTHS;
        if !widths.iter().any(|&w| w as i64 == flit_width) {
            return Err(Error::invalid(format!(
                "flit_width = {flit_width} is not supported; allowed: {} bits (the \
                 generated blocks are built for these widths)",
                one_of(&widths)
            )));
        }
        let flit_width = flit_width as u32;

        let buffer_depth = self.buffer_depth.unwrap_or(4);
        pick("buffer_depth", self.buffer_depth.is_some());
        let buffer_depth = in_range(
            "buffer_depth",
            buffer_depth,
            1,
            MAX_BUFFER_DEPTH as i64,
            "flit buffers per virtual channel",
        )?;

        let table = self.table.unwrap_or(TableStorage::None);
        pick("table", self.table.is_some());
        let addressing = self.addressing.unwrap_or(if table == TableStorage::None {
            Addressing::Relative
        } else {
            Addressing::Absolute
        });
        pick("addressing", self.addressing.is_some());
        if table != TableStorage::None && addressing == Addressing::Relative {
            return Err(Error::invalid(format!(
                "table = {table} needs addressing = absolute: routing tables are indexed \
                 by the destination (LAPSES §5), which relative offsets do not carry; \
                 allowed with relative addressing: table = none"
            )));
        }
        if table == TableStorage::Economical && topology == Topology::Torus {
            return Err(Error::invalid(
                "table = economical is defined for meshes and hypercubes: its index, the \
                 sign of (destination - node id) per dimension (LAPSES §5.2.1), does not \
                 give the minimal direction around a torus ring; allowed on a torus: \
                 table = none, full or meta",
            ));
        }
        match table {
            TableStorage::Economical if dims > crate::limits::MAX_ECONOMICAL_DIMS => {
                return Err(Error::invalid(format!(
                    "table = economical holds 3^n entries for at most {} dimensions (3^{} \
                     = 81 entries, docs/limits.md), not dims = {dims}: use table = none",
                    crate::limits::MAX_ECONOMICAL_DIMS,
                    crate::limits::MAX_ECONOMICAL_DIMS
                )));
            }
            TableStorage::Full if nodes > crate::limits::MAX_FULL_TABLE_NODES => {
                return Err(Error::invalid(format!(
                    "table = full needs one entry per node and its reset contents are a ROM \
                     of nodes x entries: routergen builds it for networks of at most {} \
                     nodes (docs/limits.md), not {nodes}: use table = economical, meta or none",
                    crate::limits::MAX_FULL_TABLE_NODES
                )));
            }
            TableStorage::Meta if nodes > crate::limits::MAX_META_TABLE_NODES => {
                return Err(Error::invalid(format!(
                    "table = meta keeps its reset contents in a ROM of nodes x entries: \
                     routergen builds it for networks of at most {} nodes (docs/limits.md), \
                     not {nodes}: use table = economical or none",
                    crate::limits::MAX_META_TABLE_NODES
                )));
            }
            _ => {}
        }
        let meta_clusters = self.meta_clusters.unwrap_or(MetaClusters::Rows);
        pick("meta_clusters", self.meta_clusters.is_some());
        if meta_clusters == MetaClusters::Squares {
            squares_allowed(table, dims, radix)?;
        }

        let lookahead = self.lookahead.unwrap_or(false);
        pick("lookahead", self.lookahead.is_some());

        let deterministic = algorithm.adaptivity() == Adaptivity::Deterministic;
        let path_selection = self
            .path_selection
            .unwrap_or(default_path_selection(algorithm));
        pick("path_selection", self.path_selection.is_some());
        if deterministic && path_selection != PathSelection::StaticXy {
            return Err(Error::invalid(format!(
                "path_selection = {path_selection} has nothing to choose from: {algorithm} \
                 offers each packet exactly one output (LAPSES §4.1: path selection picks \
                 among alternatives); allowed with a deterministic algorithm: \
                 path_selection = static-xy"
            )));
        }

        let flow_control = self.flow_control.unwrap_or(FlowControl::Credit);
        pick("flow_control", self.flow_control.is_some());
        if flow_control == FlowControl::OnOff && buffer_depth < ON_OFF_ROUND_TRIP {
            return Err(Error::invalid(format!(
                "flow_control = on-off needs a buffer_depth of {ON_OFF_ROUND_TRIP} or more; \
                 got buffer_depth = {buffer_depth}: a receiver raises its level while \
                 {ON_OFF_ROUND_TRIP} buffer slots are free, because a sender obeys a level from \
                 the cycle after it was computed and two flits can arrive beyond the occupancy \
                 it saw (docs/interface.md, Flow control); with fewer slots the level never rises"
            )));
        }

        if flow_control == FlowControl::OnOff && algorithm.routing().has_escape() {
            // Atomic VC allocation needs to know that the downstream queue
            // is empty; a level does not say (docs/router.md, Flow control).
            return Err(Error::invalid(format!(
                "flow_control = on-off with algorithm = {algorithm}: its escape channels need \
                 atomic VC allocation (an output VC takes a new packet only once the \
                 downstream queue is empty, the assumption of Duato's theorem, survey \
                 §4.2), which credits tell and on/off levels do not; allowed with \
                 {algorithm}: flow_control = credit"
            )));
        }

        let buffers = self.buffers.unwrap_or(BufferStorage::Flops);
        pick("buffers", self.buffers.is_some());

        let datapath = self.datapath.unwrap_or(RouterDatapath::Unified);
        pick("datapath", self.datapath.is_some());
        if datapath == RouterDatapath::Sliced {
            sliced_allowed(algorithm, lookahead, table)?;
        }
        if datapath == RouterDatapath::VcPorts {
            vc_ports_allowed(algorithm, lookahead, table)?;
        }

        let pipeline = self.pipeline.unwrap_or(i64::from(DEFAULT_PIPELINE));
        pick("pipeline", self.pipeline.is_some());
        pipeline_allowed(pipeline, lookahead, table, datapath)?;

        let spec = RouterSpec {
            topology,
            dims,
            radix,
            algorithm,
            ports,
            vcs,
            flit_width,
            buffer_depth,
            addressing,
            lookahead,
            path_selection,
            table,
            meta_clusters,
            flow_control,
            datapath,
            buffers,
            pipeline: pipeline as u32,
        };
        let header = spec.header_bits();
        if header > flit_width {
            let wide_enough: Vec<u32> = FLIT_WIDTHS.into_iter().filter(|&w| w >= header).collect();
            return Err(Error::invalid(format!(
                "flit_width = {flit_width} is too narrow for the head flit: {} addressing \
                 on a {radix}-ary {dims}-D {topology}{} takes {header} bits; allowed: {}",
                addressing,
                if lookahead { " with look-ahead" } else { "" },
                if wide_enough.is_empty() {
                    format!("none of the supported widths; lower radix = {radix} or dims = {dims}")
                } else {
                    format!("flit_width = {}", one_of(&wide_enough))
                }
            )));
        }
        Ok(Resolved { spec, defaulted })
    }
}

/// The path-selection heuristic an algorithm gets by default: STATIC-XY
/// where there is nothing to choose (deterministic routing), MAX-CREDIT
/// otherwise (LAPSES §1: with LRU the better choice, for its low cost).
fn default_path_selection(algorithm: Algorithm) -> PathSelection {
    if algorithm.adaptivity() == Adaptivity::Deterministic {
        PathSelection::StaticXy
    } else {
        PathSelection::MaxCredit
    }
}

/// Whether `datapath = vc-ports` is built for this configuration: for the
/// algorithms whose object lists it (`RoutingAlgorithm::datapaths`). Chien
/// draws it for *-channels (§5.4, Figure 8), whose adaptive and escape
/// channels each get crossbar ports of their own, and Duato's algorithm
/// is built as *-channels is; the core's crossbar ports are VCs, which a
/// look-ahead field (ports) and a routing table (ports and a VC class) do
/// not name.
fn vc_ports_allowed(algorithm: Algorithm, lookahead: bool, table: TableStorage) -> Result<()> {
    if !algorithm
        .routing()
        .datapaths()
        .contains(&RouterDatapath::VcPorts)
    {
        return Err(Error::invalid(format!(
            "datapath = vc-ports is not built for algorithm = {algorithm}: it is Chien's \
             organization for *-channels (a crossbar port per virtual channel, §5.4, Figure \
             8), which Duato's algorithm shares; allowed: datapath = vc-ports with \
             algorithm = {}, or datapath = unified with any algorithm",
            one_of(&Algorithm::built_with(RouterDatapath::VcPorts))
        )));
    }
    if lookahead {
        return Err(Error::invalid(
            "datapath = vc-ports with lookahead = true is not built: the look-ahead field \
             names physical ports, the VC-port crossbar switches virtual channels; allowed \
             with datapath = vc-ports: lookahead = false",
        ));
    }
    if table != TableStorage::None {
        return Err(Error::invalid(format!(
            "datapath = vc-ports with table = {table} is not built: the table's entries \
             name ports and a VC class, the VC-port crossbar switches virtual channels; \
             allowed with datapath = vc-ports: table = none"
        )));
    }
    Ok(())
}

/// Whether `datapath = sliced` is built for this configuration: for the
/// algorithms whose object lists it (`RoutingAlgorithm::datapaths`). Chien's
/// dimension slices (§5.1, Figure 5) route dimension order, whose packets
/// never return to a lower dimension, and his plane slices (§5.2, Figure 6)
/// route planar-adaptive (on meshes and tori), whose packets never return
/// to a lower plane; a slice's own address decoder reads its dimensions' fields only
/// (no look-ahead field of the whole router's ports, no 3^n table of the
/// whole router).
fn sliced_allowed(algorithm: Algorithm, lookahead: bool, table: TableStorage) -> Result<()> {
    if !algorithm
        .routing()
        .datapaths()
        .contains(&RouterDatapath::Sliced)
    {
        return Err(Error::invalid(format!(
            "datapath = sliced is not built for algorithm = {algorithm}: the sliced router \
             is Chien's organization for dimension order (one 3x3 crossbar per dimension, \
             §5.1, Figure 5) and for planar-adaptive routing (one 2-D router per adaptive \
             plane, §5.2, Figure 6); allowed: datapath = sliced with algorithm = {}, \
             or datapath = unified with any algorithm",
            one_of(&Algorithm::built_with(RouterDatapath::Sliced))
        )));
    }
    if lookahead {
        return Err(Error::invalid(
            "datapath = sliced with lookahead = true is not built: the look-ahead field \
             names the ports of a unified router; allowed with datapath = sliced: \
             lookahead = false",
        ));
    }
    if table != TableStorage::None {
        return Err(Error::invalid(format!(
            "datapath = sliced with table = {table} is not built: each slice decodes its \
             own dimension's field in logic; allowed with datapath = sliced: table = none"
        )));
    }
    Ok(())
}

/// The pipeline depth a router gets unless `pipeline` says otherwise.
pub const DEFAULT_PIPELINE: u32 = 2;

/// Whether `pipeline = N` is built for this configuration. Two cycles per
/// router for every configuration; one where a head flit's permitted
/// output VCs can be known in the cycle it arrives without the address
/// decoder on that path: the look-ahead field it carries (LAPSES §3.2
/// removes the routing stage this way). It requires `lookahead` rather
/// than implying it, because look-ahead changes the head flit's format
/// (docs/interface.md); a routing table (its word lines decoded from the
/// address) and the sliced and VC-port datapaths (which refuse
/// look-ahead) are not offered.
fn pipeline_allowed(
    pipeline: i64,
    lookahead: bool,
    table: TableStorage,
    datapath: RouterDatapath,
) -> Result<()> {
    if pipeline != 1 && pipeline != 2 {
        return Err(Error::invalid(format!(
            "pipeline = {pipeline} is not built: a head flit takes 2 cycles per router, \
             or 1 with lookahead = true; allowed: pipeline = 1 or 2"
        )));
    }
    if pipeline == 2 {
        return Ok(());
    }
    if !lookahead {
        return Err(Error::invalid(
            "pipeline = 1 needs lookahead = true: a head flit is allocated an output VC in \
             the cycle it arrives, from the look-ahead field it carries (LAPSES §3.2); \
             allowed with lookahead = false: pipeline = 2",
        ));
    }
    if table != TableStorage::None {
        return Err(Error::invalid(format!(
            "pipeline = 1 with table = {table} is not built: the table's word line is \
             decoded from the head's address before allocation; allowed with pipeline = 1: \
             table = none"
        )));
    }
    if datapath != RouterDatapath::Unified {
        return Err(Error::invalid(format!(
            "pipeline = 1 with datapath = {datapath} is not built; allowed with \
             pipeline = 1: datapath = unified"
        )));
    }
    Ok(())
}

/// Whether Figure 8(b)'s square clusters fit: a meta table, two or more
/// dimensions, and k = b^2 with b a power of two (so a coordinate's upper
/// half of bits is its cluster coordinate and its lower half its
/// sub-cluster coordinate).
fn squares_allowed(table: TableStorage, dims: u32, radix: u32) -> Result<()> {
    if table != TableStorage::Meta {
        return Err(Error::invalid(format!(
            "meta_clusters = squares groups the nodes of a meta table (LAPSES Figure 8(b)); \
             table = {table} has no clusters: use table = meta, or leave meta_clusters unset"
        )));
    }
    if dims < 2 {
        return Err(Error::invalid(format!(
            "meta_clusters = squares needs 2 or more dimensions (LAPSES Figure 8(b)), not \
             dims = {dims}: use meta_clusters = rows"
        )));
    }
    let allowed: Vec<u32> = (1..=crate::limits::MAX_RADIX)
        .filter(|&k| {
            let b = (k as f64).sqrt().round() as u32;
            b > 1 && b * b == k && b.is_power_of_two()
        })
        .collect();
    if !allowed.contains(&radix) {
        return Err(Error::invalid(format!(
            "meta_clusters = squares needs k = b^2 with b a power of two (clusters of b^n \
             nodes, LAPSES Figure 8(b)), not radix = {radix}: allowed radix = {} or \
             meta_clusters = rows",
            one_of(&allowed)
        )));
    }
    Ok(())
}

/// Checks `value` lies in `lo..=hi`; the message names the parameter and
/// the range.
fn in_range(name: &str, value: i64, lo: i64, hi: i64, what: &str) -> Result<u32> {
    if value < lo || value > hi {
        return Err(Error::invalid(format!(
            "{name} = {value} is out of range: {what} must be from {lo} to {hi}"
        )));
    }
    Ok(value as u32)
}

/// The algorithm's name in prose ([`crate::algo::RoutingAlgorithm::title`]).
fn algorithm_title(a: Algorithm) -> &'static str {
    a.routing().title()
}

/// Why the algorithm needs its minimum of virtual channels
/// ([`crate::algo::RoutingAlgorithm::vc_reason`]).
fn vc_reason(a: Algorithm, t: Topology, dims: u32) -> String {
    a.routing().vc_reason(t, dims)
}

/// Bits of the look-ahead field (docs/interface.md, "Head flit") of a router
/// with `ports` ports: one per port, and on a torus a second one per port,
/// the dateline class of the hop (survey §8), which the ports alone do not
/// give.
pub fn lookahead_field_bits(topology: Topology, ports: u32) -> u32 {
    if topology == Topology::Torus {
        2 * ports
    } else {
        ports
    }
}

fn crossbar_count(org: Organization) -> String {
    match org.crossbars {
        1 => "one crossbar".into(),
        n => format!("{n} crossbars"),
    }
}

/// Why Chien's organization for the algorithm is what it is
/// ([`crate::algo::RoutingAlgorithm::organization_reason`]).
fn organization_reason(a: Algorithm) -> &'static str {
    a.routing().organization_reason()
}

pub use crate::interface::bits_for;

impl RouterSpec {
    /// The datapath the algorithm takes on this network: crossbars and their
    /// ports P (Chien §5).
    pub fn organization(&self) -> Organization {
        self.algorithm.organization(self.topology, self.dims)
    }

    /// Fewest virtual channels per physical channel for which the algorithm
    /// is deadlock-free on this network.
    pub fn min_vcs(&self) -> u32 {
        self.algorithm.min_vcs(self.topology, self.dims)
    }

    /// Nodes in the network, k^n.
    pub fn nodes(&self) -> u64 {
        (self.radix as u64).pow(self.dims)
    }

    /// Physical ports of one router, the local port included.
    pub fn physical_ports(&self) -> u32 {
        crate::interface::physical_ports(self.topology, self.dims)
    }

    /// Bits F of one dimension's address field in the head flit
    /// ([`crate::interface::HeadFormat::field_bits`]).
    pub fn address_field_bits(&self) -> u32 {
        crate::interface::HeadFormat::of(self).field_bits()
    }

    /// Width of the routing part of the head flit: the address fields, plus
    /// with look-ahead the field of [`lookahead_field_bits`] (the next-hop
    /// candidate set of LAPSES §3.2, Fig 4b).
    pub fn header_bits(&self) -> u32 {
        let address = self.dims * self.address_field_bits();
        let lookahead = if self.lookahead {
            lookahead_field_bits(self.topology, self.physical_ports())
        } else {
            0
        };
        address + lookahead
    }

    /// A name for this configuration, usable as a Verilog module name
    /// (docs/interface.md, "Module and clocking"). Every setting that
    /// changes the RTL changes the name, so two variants can sit in one
    /// design: `router_<algorithm>_<topology><n>d_k<k>_v<V>_w<W>_d<D>`, then
    /// `_abs` (absolute addressing without a table), `_la` (look-ahead),
    /// the path-selection heuristic where it is not the algorithm's default
    /// (`_lru`, `_lfu`, `_maxcredit`, `_minmux`, `_staticxy`), the table
    /// (`_es`, `_full`, `_meta`, `_meta_sq` with square clusters), `_onoff`, `_bram` or `_lutram`, and the datapath
    /// (`_sliced`, `_vcports`).
    pub fn name(&self) -> String {
        let topo = match self.topology {
            Topology::Mesh => format!("mesh{}d_k{}", self.dims, self.radix),
            Topology::Torus => format!("torus{}d_k{}", self.dims, self.radix),
            Topology::Hypercube => format!("hypercube{}d", self.dims),
        };
        let mut name = format!(
            "router_{}_{}_v{}_w{}_d{}",
            self.algorithm.to_string().replace('-', "_"),
            topo,
            self.vcs,
            self.flit_width,
            self.buffer_depth
        );
        if self.addressing == Addressing::Absolute && self.table == TableStorage::None {
            name.push_str("_abs");
        }
        if self.lookahead {
            name.push_str("_la");
        }
        if self.path_selection != default_path_selection(self.algorithm) {
            name.push('_');
            name.push_str(&self.path_selection.to_string().replace('-', ""));
        }
        name.push_str(match self.table {
            TableStorage::None => "",
            TableStorage::Economical => "_es",
            TableStorage::Full => "_full",
            TableStorage::Meta => "_meta",
        });
        if self.meta_clusters == MetaClusters::Squares {
            name.push_str("_sq");
        }
        if self.flow_control == FlowControl::OnOff {
            name.push_str("_onoff");
        }
        name.push_str(self.buffers.suffix());
        name.push_str(match self.datapath {
            RouterDatapath::Unified => "",
            RouterDatapath::Sliced => "_sliced",
            RouterDatapath::VcPorts => "_vcports",
        });
        if self.pipeline != DEFAULT_PIPELINE {
            name.push_str(&format!("_p{}", self.pipeline));
        }
        name
    }

    /// The spec as TOML; reading it back gives the same spec.
    pub fn to_toml(&self) -> String {
        toml::to_string(self).expect("a RouterSpec always serializes")
    }

    /// `key = value` lines, with `(default)` after the values the user left out.
    pub fn describe(&self, defaulted: &[&str]) -> String {
        let rows: [(&str, String); 17] = [
            ("topology", self.topology.to_string()),
            ("dims", self.dims.to_string()),
            ("radix", self.radix.to_string()),
            ("algorithm", self.algorithm.to_string()),
            (
                "ports",
                format!(
                    "{p} [Chien's crossbar size P: {} of {p}x{p}; the router has {} physical \
                     ports]",
                    crossbar_count(self.organization()),
                    self.physical_ports(),
                    p = self.ports
                ),
            ),
            ("vcs", self.vcs.to_string()),
            ("flit_width", self.flit_width.to_string()),
            ("buffer_depth", self.buffer_depth.to_string()),
            ("addressing", self.addressing.to_string()),
            ("lookahead", self.lookahead.to_string()),
            ("path_selection", self.path_selection.to_string()),
            ("table", self.table.to_string()),
            ("meta_clusters", self.meta_clusters.to_string()),
            ("flow_control", self.flow_control.to_string()),
            ("datapath", self.datapath.to_string()),
            ("buffers", self.buffers.to_string()),
            ("pipeline", self.pipeline.to_string()),
        ];
        rows.iter()
            .map(|(k, v)| {
                let mark = if defaulted.contains(k) {
                    "  (default)"
                } else {
                    ""
                };
                format!("  {k:<15}= {v}{mark}\n")
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Whether `text` spells a command-line flag (`--dims`).
    fn names_a_flag(text: &str) -> bool {
        text.match_indices("--")
            .any(|(i, _)| text[i + 2..].starts_with(|c: char| c.is_ascii_lowercase()))
    }

    /// The keys of a TOML spec, read from one routergen writes.
    fn keys() -> Vec<String> {
        let spec = SpecInput::default().resolve().expect("the default").spec;
        spec.to_toml()
            .lines()
            .filter_map(|l| Some(l.split_once(" = ")?.0.to_string()))
            .collect()
    }

    /// A rejection of each kind speaks of the parameters as the TOML file
    /// names them (`key = value`), never of the flags that set them.
    #[test]
    fn rejections_name_parameters_not_flags() {
        let keys = keys();
        assert!(keys.contains(&"buffer_depth".to_string()), "{keys:?}");
        let base = SpecInput::default();
        let bad = [
            SpecInput {
                dims: Some(0),
                ..base.clone()
            },
            SpecInput {
                topology: Some(Topology::Hypercube),
                radix: Some(3),
                ..base.clone()
            },
            SpecInput {
                topology: Some(Topology::Torus),
                radix: Some(2),
                ..base.clone()
            },
            SpecInput {
                radix: Some(64),
                dims: Some(3),
                ..base.clone()
            },
            SpecInput {
                algorithm: Some(Algorithm::WestFirst),
                dims: Some(3),
                ..base.clone()
            },
            SpecInput {
                algorithm: Some(Algorithm::Duato),
                vcs: Some(1),
                ..base.clone()
            },
            SpecInput {
                ports: Some(7),
                ..base.clone()
            },
            SpecInput {
                flit_width: Some(12),
                ..base.clone()
            },
            SpecInput {
                buffer_depth: Some(0),
                ..base.clone()
            },
            SpecInput {
                table: Some(TableStorage::Economical),
                addressing: Some(Addressing::Relative),
                ..base.clone()
            },
            SpecInput {
                table: Some(TableStorage::Economical),
                topology: Some(Topology::Torus),
                ..base.clone()
            },
            SpecInput {
                path_selection: Some(PathSelection::Lru),
                ..base.clone()
            },
            SpecInput {
                flow_control: Some(FlowControl::OnOff),
                buffer_depth: Some(1),
                ..base.clone()
            },
            SpecInput {
                flow_control: Some(FlowControl::OnOff),
                algorithm: Some(Algorithm::Duato),
                ..base.clone()
            },
            SpecInput {
                datapath: Some(RouterDatapath::Sliced),
                algorithm: Some(Algorithm::Duato),
                ..base.clone()
            },
            SpecInput {
                datapath: Some(RouterDatapath::VcPorts),
                ..base.clone()
            },
            SpecInput {
                pipeline: Some(3),
                ..base.clone()
            },
            SpecInput {
                pipeline: Some(1),
                ..base.clone()
            },
            SpecInput {
                meta_clusters: Some(MetaClusters::Squares),
                ..base.clone()
            },
            SpecInput {
                topology: Some(Topology::Torus),
                dims: Some(3),
                radix: Some(16),
                lookahead: Some(true),
                ..base.clone()
            },
        ];
        for input in bad {
            let e = input.resolve().expect_err("refused").to_string();
            assert!(!names_a_flag(&e), "{e}");
            assert!(
                keys.iter().any(|k| e.contains(&format!("{k} = "))),
                "names no parameter: {e}"
            );
        }
    }

    #[test]
    fn a_flag_is_told_from_prose() {
        assert!(names_a_flag("use --table none"));
        assert!(!names_a_flag("use table = none -- or meta"));
    }
}
