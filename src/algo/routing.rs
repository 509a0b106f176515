//! What a routing algorithm is, as one object: [`RoutingAlgorithm`].
//!
//! Each algorithm routergen ships is a unit struct in a file of its own
//! under `src/algo/` (`dimension_order.rs`, `duato.rs`, ...) implementing
//! this trait: its routing relation and channel classes, the topologies it
//! is defined on and why not the others, the virtual channels it needs and
//! why, Chien's datapath organization for it and why, its escape channels,
//! the datapaths routergen builds it with, its adaptivity, its title, and
//! how Chien's cost model treats it. Everything else (the spec's
//! validation, the checker, the tables, the router, the cost model) asks
//! the object and names no algorithm.
//!
//! Adding an algorithm is a new file with its object, its `mod` line in
//! `src/algo/mod.rs`, and one entry in the `algorithms!` list of
//! `src/spec/algorithm.rs`, which gives the variant its names and maps it to
//! the object ([`crate::spec::Algorithm::routing`]).

use super::{Hop, Knobs, NodeId, Relation};
use crate::spec::{Adaptivity, Datapath, Organization, RouterDatapath, Topology};

/// Everything one routing algorithm is. Implemented by a unit struct per
/// algorithm; reached through [`crate::spec::Algorithm::routing`].
pub trait RoutingAlgorithm: Sync {
    /// The algorithm's name in prose ("dimension-order routing").
    fn title(&self) -> &'static str;

    /// How much choice the algorithm leaves to the router.
    fn adaptivity(&self) -> Adaptivity;

    /// Whether the algorithm is defined on `topology` with `dims`
    /// dimensions; `Err` carries the reason, for the user.
    fn supports(&self, topology: Topology, dims: u32) -> Result<(), String>;

    /// The channel classes of each dimension on an n-dimensional `topology`
    /// with the rules `knobs` leaves in place, and where virtual lanes go
    /// ([`super::VcMap`]). The deadlock-freedom minimum of virtual channels
    /// is the largest class count ([`RoutingAlgorithm::min_vcs`]).
    fn classes(&self, topology: Topology, dims: usize, knobs: Knobs) -> ClassLayout;

    /// Why the algorithm needs [`RoutingAlgorithm::min_vcs`] virtual
    /// channels, for the message refusing fewer (empty where the minimum
    /// is one, which no spec can undercut).
    fn vc_reason(&self, topology: Topology, dims: u32) -> String;

    /// The datapath organization of Chien §5 for the algorithm.
    fn organization(&self, topology: Topology, dims: u32) -> Organization;

    /// Why the organization is what it is, with Chien's section and figure.
    fn organization_reason(&self) -> &'static str;

    /// Whether the relation has an escape sub-function (Duato's theory
    /// applies: survey §4.2) rather than an acyclic dependency graph.
    fn has_escape(&self) -> bool {
        false
    }

    /// Whether the paper's algorithm routes minimally, so that the checker
    /// claims and proves minimality. Every shipped relation does.
    fn minimal(&self) -> bool {
        true
    }

    /// The router datapaths (`datapath`) routergen builds the algorithm
    /// with: the unified crossbar, and Chien's own organization for it
    /// where that is built (`tests/algo_facts.rs` holds the two to agree).
    fn datapaths(&self) -> &'static [RouterDatapath];

    /// How Chien's cost and speed model treats the algorithm.
    fn chien(&self) -> ChienModel;

    /// Appends to `out` the permitted next hops of a message at `node`
    /// headed for `dest != node` on `rel` (a relation of this algorithm).
    /// A function of (node, destination) only: the decoders and the
    /// routing tables are compiled from it per destination.
    fn route(&self, rel: &Relation, node: NodeId, dest: NodeId, out: &mut Vec<Hop>);

    /// Minimum virtual channels per physical channel for deadlock freedom:
    /// one per channel class, so that no two classes share a VC (the
    /// checker proves every registered algorithm with it,
    /// `tests/algo_facts.rs`).
    fn min_vcs(&self, topology: Topology, dims: u32) -> u32 {
        self.classes(topology, dims as usize, Knobs::default())
            .needed()
            .max(1) as u32
    }

    /// Whether the relation offers one hop per state (apart from virtual
    /// lanes).
    fn is_deterministic(&self) -> bool {
        self.adaptivity() == Adaptivity::Deterministic
    }
}

/// The channel classes of a relation, per dimension, and where the
/// virtual channels beyond them go.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClassLayout {
    /// `per_dim[d]`: the number of channel classes of dimension d.
    pub per_dim: Vec<usize>,
    /// The class that takes the extra virtual channels as lanes, or `None`
    /// to deal them round-robin over the classes ([`super::VcMap`]).
    pub lanes_to: Option<usize>,
}

impl ClassLayout {
    /// `classes` classes in each of `dims` dimensions, lanes dealt round-robin.
    pub fn uniform(dims: usize, classes: usize) -> ClassLayout {
        ClassLayout {
            per_dim: vec![classes; dims],
            lanes_to: None,
        }
    }

    /// Virtual channels needed to keep every class on a VC of its own.
    pub fn needed(&self) -> usize {
        self.per_dim.iter().copied().max().unwrap_or(1)
    }
}

/// How Chien's cost and speed model (Hot Interconnects 1993, §5) treats an
/// algorithm.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChienModel {
    /// Chien §5 studies the algorithm: its row in Figures 9 and 10, the
    /// topology the model evaluates that row on, and the virtual channels
    /// Chien assumes for it.
    Studied {
        /// The row's label in Figures 9 and 10 ("Dimension order").
        figure_row: &'static str,
        /// The topology of the row.
        topology: Topology,
        /// Virtual channels per physical channel Chien assumes.
        vcs: u32,
    },
    /// Chien does not model the algorithm; it is costed with the
    /// organization of the algorithm `like` of Chien §5.`section`, with its
    /// own deadlock-freedom minimum of virtual channels.
    CostedAs {
        /// The algorithm whose organization it shares, in prose.
        like: &'static str,
        /// The subsection of Chien §5 describing that organization.
        section: u32,
    },
}

/// Why an algorithm that chooses among directions is not built on a
/// unidirectional torus, for its [`RoutingAlgorithm::supports`].
pub fn one_way_refusal(title: &str) -> String {
    format!(
        "{title} is built here for networks whose links run both ways; a \
         unidirectional torus carries traffic toward + only: use algorithm = dor \
         there, or topology = torus"
    )
}

/// Dateline classes per ring: 2 on a torus with the dateline rule in place
/// (survey §8, Cray T3D), else 1.
pub fn dateline_classes(topology: Topology, knobs: Knobs) -> usize {
    if topology.wraps() && knobs.dateline {
        2
    } else {
        1
    }
}

/// One crossbar from every input to every output: the local port and
/// `ports_per_link` crossbar ports on each physical link (Chien §5.3,
/// Figure 7, with one; §5.4, Figure 8, with a port per channel class).
pub fn unified_organization(topology: Topology, dims: u32, ports_per_link: u32) -> Organization {
    let ports = ports_per_link * topology.links_per_dim() * dims + 1;
    Organization {
        datapath: Datapath::Unified,
        crossbars: 1,
        ports,
        freedom: ports,
        classes_per_link: ports_per_link,
    }
}
