//! Every size routergen accepts, in one table.
//!
//! Validation ([`crate::spec::SpecInput::resolve`]) reads these limits, so
//! a spec it accepts is one the rest of routergen builds (or whose report
//! says, naming the limit, which long analysis it leaves to `routergen
//! check`); the router, the checker and the simulator refer to the same
//! constants. docs/limits.md lists them with their reasons, and
//! [`table`] prints that list.

use crate::spec::Topology;

/// Largest network, in nodes. The router's address decoder is compiled
/// from the routing relation and proved at every node for every
/// destination (N^2 questions).
pub const MAX_NODES: u64 = 4096;
/// Largest number of dimensions of a mesh or torus: a router has 2n + 1
/// ports, numbered in 4 bits (at most 16).
pub const MAX_DIMS: u32 = 7;
/// Largest number of dimensions of a hypercube: the address decoder's
/// routing key holds 3 bits per dimension in 32 bits.
pub const MAX_HYPERCUBE_DIMS: u32 = 10;
/// Largest radix k: coordinates of at most 8 bits.
pub const MAX_RADIX: u32 = 256;
/// Largest number of physical ports of a router (4-bit port numbers).
pub const MAX_PORTS: u32 = 16;
/// Largest number of virtual channels per physical channel (4-bit VC
/// numbers inside the router).
pub const MAX_VCS: u32 = 16;
/// Largest input buffer, in flits per virtual channel (5-bit occupancy
/// counters).
pub const MAX_BUFFER_DEPTH: u32 = 16;
/// Most register stages on a link of a generated network (`routergen
/// network`), each way: a long wire on an FPGA needs one or two.
pub const MAX_LINK_STAGES: u32 = 8;
/// Flit widths a router is built for (rust-hdl widths are fixed when
/// routergen is compiled).
pub const ROUTER_FLIT_WIDTHS: [u32; 3] = [16, 32, 64];
/// Largest number of dimensions of the economical-storage table (3^4 =
/// 81 entries, a 7-bit entry address).
pub const MAX_ECONOMICAL_DIMS: u32 = 4;
/// Largest network with a full routing table: the reset contents are a
/// ROM of nodes x entries, N^2 entries.
pub const MAX_FULL_TABLE_NODES: u64 = 64;
/// Largest network with a meta routing table (a ROM of nodes x about
/// 2 sqrt(N) entries).
pub const MAX_META_TABLE_NODES: u64 = 256;
/// Largest network whose deadlock proof and routing-table statistics a
/// report of `routergen -o DIR` includes (the proof of a 256-node
/// network takes about a second); `routergen check` goes up to
/// [`MAX_CHECK_NODES`].
pub const MAX_REPORT_PROOF_NODES: u64 = 256;
/// Largest network `routergen check` proves: it explores every source and
/// destination, and Duato's extended dependency graph of a 1,024-node
/// hypercube already holds 4 million dependencies (tens of seconds).
pub const MAX_CHECK_NODES: u64 = 1024;

/// Largest number of routing keys the router's address decoder holds: the
/// relation is compiled into one row per distinct key (a sign, tie and
/// wraparound code per dimension), and which keys occur is known only
/// from the relation, so this is checked when the router is built (a
/// report says why there is no RTL) rather than when the spec is read.
pub const MAX_DECODER_KEYS: usize = 4096;
/// Largest number of VC classes a routing table tells apart (the
/// router's 4-bit class registers).
pub const MAX_TABLE_VC_CLASSES: usize = 16;
/// Flit widths one block is built for (`routergen block`; rust-hdl widths
/// are fixed when routergen is compiled); a whole router takes the
/// narrower list [`ROUTER_FLIT_WIDTHS`], whose head flit needs 16 bits.
pub const BLOCK_FLIT_WIDTHS: [u32; 4] = [8, 16, 32, 64];

/// Largest network the network model ([`crate::algo::Network`]) holds, in
/// nodes: far above [`MAX_NODES`], which bounds the networks routergen
/// builds routers for, because analyses that only count a network's
/// nodes and channels (Dally's binary 20-cube) need no router.
pub const MAX_NETWORK_MODEL_NODES: u64 = 1 << 20;
/// Largest number of dimensions the network model holds: node ids are
/// 32 bits, so no network of radix 2 or more has more dimensions.
pub const MAX_NETWORK_MODEL_DIMS: u32 = 32;

/// Largest number of dimensions `routergen check` takes (its networks are
/// bounded by [`MAX_CHECK_NODES`] too).
pub const MAX_CHECK_DIMS: u32 = 16;
/// Largest radix `routergen check` takes.
pub const MAX_CHECK_RADIX: u32 = 64;
/// Largest number of dimensions `routergen model` takes: Chien's cost
/// model counts gates and delays from n without building the network.
pub const MAX_COST_MODEL_DIMS: u32 = 32;
/// Largest number of virtual channels `routergen model` takes.
pub const MAX_COST_MODEL_VCS: u32 = 64;

/// Most replications of one point `routergen sim` runs (`--seeds`): the
/// netlist engine holds them side by side in one pass.
pub const MAX_SEEDS: u32 = 100;

/// Largest number of dimensions `topology` takes.
pub fn max_dims(topology: Topology) -> u32 {
    match topology {
        Topology::Hypercube => MAX_HYPERCUBE_DIMS,
        _ => MAX_DIMS,
    }
}

/// One row of the limits table: what, the allowed values, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Limit {
    /// The quantity limited.
    pub what: &'static str,
    /// The values allowed.
    pub allowed: String,
    /// Why the limit is there.
    pub why: &'static str,
}

/// Every limit, in the order docs/limits.md lists them.
pub fn table() -> Vec<Limit> {
    let widths: Vec<String> = ROUTER_FLIT_WIDTHS.iter().map(u32::to_string).collect();
    vec![
        Limit {
            what: "nodes in the network",
            allowed: format!("2 to {MAX_NODES}"),
            why: "the address decoder is compiled from the relation and proved at every node for every destination",
        },
        Limit {
            what: "dimensions of a mesh or torus",
            allowed: format!("1 to {MAX_DIMS}"),
            why: "a router has 2n + 1 ports, numbered in 4 bits",
        },
        Limit {
            what: "dimensions of a hypercube",
            allowed: format!("1 to {MAX_HYPERCUBE_DIMS}"),
            why: "the address decoder's routing key holds 3 bits per dimension in 32 bits",
        },
        Limit {
            what: "radix k",
            allowed: format!(
                "mesh 2 to {MAX_RADIX}, torus 3 to {MAX_RADIX}, unidirectional torus 2 to \
                 {MAX_RADIX}, hypercube 2"
            ),
            why: "coordinates of at most 8 bits; a 2-ary torus is a hypercube",
        },
        Limit {
            what: "physical ports",
            allowed: format!("at most {MAX_PORTS}"),
            why: "4-bit port numbers inside the router",
        },
        Limit {
            what: "virtual channels per physical channel",
            allowed: format!("the algorithm's minimum to {MAX_VCS}"),
            why: "4-bit VC numbers inside the router; the minimum is the deadlock-freedom minimum",
        },
        Limit {
            what: "buffer depth (flits per virtual channel)",
            allowed: format!("1 to {MAX_BUFFER_DEPTH}; 2 or more with on/off flow control"),
            why: "5-bit occupancy counters; an on/off level promises 2 free slots",
        },
        Limit {
            what: "flit width W",
            allowed: format!("{} bits, at least the head flit's routing field", widths.join(", ")),
            why: "rust-hdl widths are fixed when routergen is compiled",
        },
        Limit {
            what: "economical-storage table",
            allowed: format!(
                "meshes, hypercubes and unidirectional tori of at most {MAX_ECONOMICAL_DIMS} \
                 dimensions"
            ),
            why: "3^n entries with a 7-bit entry address; on a (bidirectional) torus the sign vector does not give the minimal direction; on a unidirectional one it gives the dateline class",
        },
        Limit {
            what: "full routing table",
            allowed: format!("networks of at most {MAX_FULL_TABLE_NODES} nodes"),
            why: "the reset contents are a ROM of N x N entries",
        },
        Limit {
            what: "meta routing table",
            allowed: format!("networks of at most {MAX_META_TABLE_NODES} nodes"),
            why: "the reset contents are a ROM of N x about 2 sqrt(N) entries",
        },
        Limit {
            what: "register stages on a link of a network (`routergen network`)",
            allowed: format!("0 to {MAX_LINK_STAGES}, each way; 0 with on/off flow control"),
            why: "a long wire on an FPGA needs one or two; an on/off level leaves room for one unstaged round trip",
        },
        Limit {
            what: "deadlock proof in a generated report",
            allowed: format!("networks of at most {MAX_REPORT_PROOF_NODES} nodes (routergen check: {MAX_CHECK_NODES})"),
            why: "the channel dependency graph grows with N^2: reports stay fast, the check command goes further and shows its progress",
        },
    ]
}

/// The limits as a Markdown table (docs/limits.md).
pub fn to_markdown() -> String {
    let mut s = String::from("| quantity | allowed | why |\n|---|---|---|\n");
    for l in table() {
        s.push_str(&format!("| {} | {} | {} |\n", l.what, l.allowed, l.why));
    }
    s
}
