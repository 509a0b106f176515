//! The router specification: what the user asks for, resolved and validated.
//!
//! Input arrives as a [`SpecInput`] (every option optional) from a TOML
//! file and from command-line flags; flags override the file.
//! [`SpecInput::resolve`] fills in defaults and validates everything
//! before any file is written, giving a [`RouterSpec`] that the rest of
//! routergen reads and never re-checks. Each option is declared once, in
//! [`options`]; each check is a function of `checks.rs`. This layer knows
//! nothing of hardware. Its messages name each parameter as the TOML file
//! does (`dims = 40 is out of range`); the command line adds the flags
//! that set them.

pub mod algorithm;
mod checks;
pub mod names;
pub mod options;

use std::path::Path;

pub use algorithm::{Adaptivity, Algorithm, Datapath, Organization};
use names::named_enum;
pub use options::{Resolved, RouterSpec, SpecInput, OPTIONS};

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
        /// k-ary n-cube whose rings carry traffic one way, +, only: Dally's
        /// k-ary n-cube (IEEE TC 1990, §II-A), one channel per dimension out
        /// of each node.
        UniTorus => "unidirectional-torus" ["uni-torus"],
    }
);

impl Topology {
    /// Link ports per dimension at a router: two (+ and -) on meshes and
    /// bidirectional tori; one on a hypercube (the same neighbour both
    /// ways) and on a unidirectional torus (out toward +, in from -).
    pub fn links_per_dim(self) -> u32 {
        match self {
            Topology::Mesh | Topology::Torus => 2,
            Topology::Hypercube | Topology::UniTorus => 1,
        }
    }

    /// Whether each dimension closes into a ring through wraparound links.
    pub fn wraps(self) -> bool {
        matches!(self, Topology::Torus | Topology::UniTorus)
    }
}

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

/// On/off flow control: the round trip of a level in cycles
/// (docs/interface.md): the level a receiver computes in cycle t is obeyed
/// by the sender from t + 1, so two flits can arrive beyond the occupancy
/// it was computed from; the receiver raises it while this many slots are
/// free, and needs at least this many.
pub const ON_OFF_ROUND_TRIP: u32 = 2;

/// The pipeline depth a router gets unless `pipeline` says otherwise.
pub const DEFAULT_PIPELINE: u32 = 2;

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
}

/// Bits of the look-ahead field (docs/interface.md, "Head flit") of a router
/// with `ports` ports: one per port, and on a torus a second one per port,
/// the dateline class of the hop (survey §8), which the ports alone do not
/// give.
pub fn lookahead_field_bits(topology: Topology, ports: u32) -> u32 {
    if topology.wraps() {
        2 * ports
    } else {
        ports
    }
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

    /// The spec as TOML; reading it back gives the same spec.
    pub fn to_toml(&self) -> String {
        toml::to_string(self).expect("a RouterSpec always serializes")
    }

    /// `key = value` lines, with `(default)` after the values the user left out.
    pub fn describe(&self, defaulted: &[&str]) -> String {
        self.values()
            .iter()
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
