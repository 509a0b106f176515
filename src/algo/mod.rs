//! Routing relations: the network model and one object per algorithm.
//!
//! A [`Relation`] answers, for a message at `node` that arrived on input
//! channel `input` and is headed for `dest`, the set of output channels
//! (port, virtual channel) it may take next, each flagged when it belongs to
//! the escape sub-function (survey §4.2, Definition 5). It is the single
//! source of truth: the address decoder and the routing tables are compiled
//! from it ([`tables`]), the deadlock checker proves it ([`check`]), and the
//! network simulators ask it whether a hop was legal.
//!
//! Each algorithm is one object in a file of its own ([`RoutingAlgorithm`],
//! reached through [`Algorithm::routing`]): its relation and channel
//! classes, where it is defined, its minimum virtual channels, Chien's
//! organization for it and its escape channels, each with the reason.
//!
//! ```
//! use routergen::algo::{check, Input, Network, Relation};
//! use routergen::spec::{Algorithm, Topology};
//!
//! let net = Network::new(Topology::Mesh, 2, 4).unwrap();
//! let duato = Relation::new(Algorithm::Duato, net, 2).unwrap();
//! let (src, dst) = (net.node_at(&[0, 0]), net.node_at(&[2, 3]));
//! // Per hop: the permitted (port, VC) pairs, escape channels flagged.
//! let hops = duato.hops(src, Input::INJECTED, dst);
//! assert!(hops.iter().any(|h| h.escape));
//! // A scoreboard's question: was this hop legal?
//! assert!(duato.permits(src, Input::INJECTED, dst, hops[0].port, hops[0].vc));
//! // The proof.
//! assert!(check::check(&duato, false).proved());
//! ```
//!
//! Nodes are numbered in row-major order with dimension 0 varying fastest:
//! `node = sum(coord[d] * radix^d)`. A hypercube is the binary n-cube, i.e. a
//! 2-ary mesh (survey §2): a node whose bit d is 0 has a `+d` link in
//! dimension d, a node whose bit d is 1 a `-d` link, one link per dimension.

pub mod check;
pub mod dimension_order;
pub mod duato;
pub mod negative_first;
pub mod north_last;
pub mod numbering;
pub mod planar_adaptive;
pub mod routing;
pub mod star_channels;
pub mod tables;
pub mod turn_model;
pub mod west_first;

use std::fmt;

use crate::error::{Error, Result};
use crate::limits::{MAX_NETWORK_MODEL_DIMS, MAX_NETWORK_MODEL_NODES, MAX_RADIX, MAX_VCS};
use crate::spec::{Algorithm, Topology};

pub use numbering::port_number;
pub use routing::{ChienModel, ClassLayout, RoutingAlgorithm};
pub use turn_model::{Turn, TurnSet};

/// Node number, row-major with dimension 0 fastest.
pub type NodeId = u32;

/// Direction of travel along a dimension.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Dir {
    /// Toward higher coordinates.
    Plus,
    /// Toward lower coordinates.
    Minus,
}

impl Dir {
    /// The opposite direction.
    pub fn reverse(self) -> Dir {
        match self {
            Dir::Plus => Dir::Minus,
            Dir::Minus => Dir::Plus,
        }
    }

    /// `+` or `-`, as in port names.
    pub fn symbol(self) -> char {
        match self {
            Dir::Plus => '+',
            Dir::Minus => '-',
        }
    }
}

/// A router port: the local (injection/ejection) port, or a link in a
/// dimension and direction.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Port {
    /// Injection and ejection.
    Local,
    /// The link leaving in direction `dir` of dimension `dim`.
    Link {
        /// The dimension.
        dim: u8,
        /// The direction along it.
        dir: Dir,
    },
}

impl Port {
    /// The link port of dimension `dim` in direction `dir`.
    pub fn link(dim: usize, dir: Dir) -> Port {
        Port::Link {
            dim: dim as u8,
            dir,
        }
    }
}

/// Dimension names used in messages: x, y, z, then d3, d4, ...
pub fn dim_name(dim: usize) -> String {
    match dim {
        0 => "x".into(),
        1 => "y".into(),
        2 => "z".into(),
        d => format!("d{d}"),
    }
}

impl fmt::Display for Port {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Port::Local => f.write_str("local"),
            Port::Link { dim, dir } => write!(f, "{}{}", dir.symbol(), dim_name(*dim as usize)),
        }
    }
}

/// One permitted next hop: an output port, a virtual channel on it, and
/// whether the channel is supplied by the escape sub-function.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Hop {
    /// The output port.
    pub port: Port,
    /// The virtual channel on it.
    pub vc: u8,
    /// Whether the channel belongs to the escape sub-function.
    pub escape: bool,
}

/// The channel a message arrived on at the current node: `port` is the
/// direction it was travelling (the upstream router's output port), `Local`
/// when it was just injected.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Input {
    /// The direction the message was travelling (`Local` when injected).
    pub port: Port,
    /// The virtual channel it arrived on.
    pub vc: u8,
}

impl Input {
    /// A message just injected at its source.
    pub const INJECTED: Input = Input {
        port: Port::Local,
        vc: 0,
    };
}

/// A unidirectional virtual channel: leaves `node` through `port` on `vc`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Channel {
    /// The node the channel leaves.
    pub node: NodeId,
    /// The port it leaves by.
    pub port: Port,
    /// Its virtual channel.
    pub vc: u8,
}

/// A concrete network: topology, n dimensions, k nodes per dimension.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Network {
    /// Mesh, torus or hypercube.
    pub topology: Topology,
    /// Dimensions n.
    pub dims: u32,
    /// Nodes per dimension k (2 on a hypercube).
    pub radix: u32,
    /// radix^d for d = 0..=dims (coordinates are on every hot path).
    stride: [u32; MAX_NETWORK_MODEL_DIMS as usize + 1],
    /// log2(radix) when the radix is a power of two: coordinates are then
    /// shifts and masks instead of divisions.
    shift: Option<u32>,
}

impl Network {
    /// Validates the shape; a hypercube has radix 2 whatever is asked.
    pub fn new(topology: Topology, dims: u32, radix: u32) -> Result<Network> {
        let radix = if topology == Topology::Hypercube {
            2
        } else {
            radix
        };
        if dims == 0 || dims > MAX_NETWORK_MODEL_DIMS {
            return Err(Error::invalid(format!(
                "{dims} dimensions: a network has 1 to {MAX_NETWORK_MODEL_DIMS} dimensions"
            )));
        }
        if !(2..=MAX_RADIX).contains(&radix) {
            return Err(Error::invalid(format!(
                "radix {radix}: a {topology} has 2 to {MAX_RADIX} nodes per dimension"
            )));
        }
        let too_big = match (radix as u64).checked_pow(dims) {
            Some(n) => n > MAX_NETWORK_MODEL_NODES,
            None => true,
        };
        if too_big {
            return Err(Error::invalid(format!(
                "a {radix}-ary {dims}-dimensional {topology} has more than \
                 {MAX_NETWORK_MODEL_NODES} nodes"
            )));
        }
        let mut stride = [0u32; MAX_NETWORK_MODEL_DIMS as usize + 1];
        stride[0] = 1;
        for d in 1..=dims as usize {
            stride[d] = stride[d - 1] * radix;
        }
        Ok(Network {
            topology,
            dims,
            radix,
            stride,
            shift: radix.is_power_of_two().then(|| radix.trailing_zeros()),
        })
    }

    /// Nodes in the network, k^n.
    pub fn nodes(&self) -> u32 {
        self.stride[self.n()]
    }

    /// Dimensions n, as an index bound.
    pub fn n(&self) -> usize {
        self.dims as usize
    }

    /// Whether the network has wraparound links (a torus, either way).
    pub fn is_torus(&self) -> bool {
        self.topology.wraps()
    }

    /// Whether the rings carry traffic one way only (+).
    pub fn is_one_way(&self) -> bool {
        self.topology == Topology::UniTorus
    }

    /// Coordinate of `node` in dimension `dim`.
    pub fn coord(&self, node: NodeId, dim: usize) -> u32 {
        match self.shift {
            Some(s) => (node >> (s * dim as u32)) & (self.radix - 1),
            None => (node / self.stride[dim]) % self.radix,
        }
    }

    /// All coordinates of `node`, dimension 0 first.
    pub fn coords(&self, node: NodeId) -> Vec<u32> {
        (0..self.n()).map(|d| self.coord(node, d)).collect()
    }

    /// The node at `coords` (dimension 0 first; each taken modulo k).
    pub fn node_at(&self, coords: &[u32]) -> NodeId {
        coords
            .iter()
            .rev()
            .fold(0, |acc, &c| acc * self.radix + (c % self.radix))
    }

    /// Coordinates as `(1,0)`.
    pub fn node_name(&self, node: NodeId) -> String {
        let c: Vec<String> = self.coords(node).iter().map(|c| c.to_string()).collect();
        format!("({})", c.join(","))
    }

    /// Ports per router including the local port (index 0): one link per
    /// dimension on a hypercube and a unidirectional torus, two elsewhere.
    pub fn port_count(&self) -> usize {
        1 + self.topology.links_per_dim() as usize * self.n()
    }

    /// The port's number in the router's interface (0 local; `1 + d` on a
    /// hypercube; `1 + 2d` (plus) and `2 + 2d` (minus) elsewhere:
    /// [`port_number`]).
    pub fn port_index(&self, port: Port) -> usize {
        port_number(self.topology, port)
    }

    /// The node across `port`, or `None` for the local port and for links
    /// that do not exist (mesh boundary, the absent direction of a hypercube
    /// dimension, - on a unidirectional torus, which a node sends on only
    /// toward +).
    pub fn neighbour(&self, node: NodeId, port: Port) -> Option<NodeId> {
        match port {
            Port::Link {
                dir: Dir::Minus, ..
            } if self.is_one_way() => None,
            _ => self.across(node, port),
        }
    }

    /// The node one step along link `port` of `node`, around the ring on a
    /// torus of either kind; `None` for the local port and off a mesh edge.
    fn across(&self, node: NodeId, port: Port) -> Option<NodeId> {
        let Port::Link { dim, dir } = port else {
            return None;
        };
        let d = dim as usize;
        if d >= self.n() {
            return None;
        }
        let c = self.coord(node, d);
        let k = self.radix;
        let step = self.stride[d];
        let next = match (dir, self.is_torus()) {
            (Dir::Plus, _) if c + 1 < k => c + 1,
            (Dir::Plus, true) => 0,
            (Dir::Minus, _) if c > 0 => c - 1,
            (Dir::Minus, true) => k - 1,
            _ => return None,
        };
        Some(node - c * step + next * step)
    }

    /// The links flits arrive on at `node`, named as ports of `node` (the
    /// direction toward the sender): [`Self::links`], and on a
    /// unidirectional torus, where a node receives from - what it sends
    /// toward +, the - link of each dimension.
    pub fn in_links(&self, node: NodeId) -> Vec<Port> {
        if self.is_one_way() {
            (0..self.n()).map(|d| Port::link(d, Dir::Minus)).collect()
        } else {
            self.links(node)
        }
    }

    /// The node that sends into `node` through its link `port` (one of
    /// [`Self::in_links`]): the neighbour across it; on a unidirectional
    /// torus, the one at -1 in the dimension for its - link.
    pub fn sender(&self, node: NodeId, port: Port) -> Option<NodeId> {
        self.across(node, port)
    }

    /// Link ports `node` sends on.
    pub fn links(&self, node: NodeId) -> Vec<Port> {
        let mut out = Vec::with_capacity(2 * self.n());
        for d in 0..self.n() {
            for dir in [Dir::Plus, Dir::Minus] {
                let p = Port::link(d, dir);
                if self.neighbour(node, p).is_some() {
                    out.push(p);
                }
            }
        }
        out
    }

    /// Whether the link `port` of `node` is a torus wraparound link.
    pub fn is_wraparound(&self, node: NodeId, port: Port) -> bool {
        match port {
            Port::Link { dim, dir } if self.is_torus() => {
                let c = self.coord(node, dim as usize);
                match dir {
                    Dir::Plus => c == self.radix - 1,
                    Dir::Minus => c == 0,
                }
            }
            _ => false,
        }
    }

    /// Minimal directions in dimension `dim` from `node` to `dest`:
    /// `(plus, minus, hops)`. On a torus with an even radix a destination
    /// k/2 away is minimal both ways; on a unidirectional torus + is the
    /// only way, `(b - a) mod k` hops.
    pub fn minimal_dirs(&self, node: NodeId, dest: NodeId, dim: usize) -> (bool, bool, u32) {
        let a = self.coord(node, dim);
        let b = self.coord(dest, dim);
        if a == b {
            return (false, false, 0);
        }
        if !self.is_torus() {
            return (b > a, b < a, a.abs_diff(b));
        }
        let k = self.radix;
        let fwd = (b + k - a) % k;
        if self.is_one_way() {
            return (true, false, fwd);
        }
        let back = k - fwd;
        (fwd <= back, back <= fwd, fwd.min(back))
    }

    /// The one direction deterministic routing takes in `dim`: the minimal
    /// one, plus on a torus tie; `None` when the offset is zero.
    pub fn dor_dir(&self, node: NodeId, dest: NodeId, dim: usize) -> Option<Dir> {
        match self.minimal_dirs(node, dest, dim) {
            (true, _, _) => Some(Dir::Plus),
            (false, true, _) => Some(Dir::Minus),
            _ => None,
        }
    }

    /// Lowest dimension in which `node` and `dest` differ.
    pub fn lowest_differing_dim(&self, node: NodeId, dest: NodeId) -> Option<usize> {
        (0..self.n()).find(|&d| self.coord(node, d) != self.coord(dest, d))
    }

    /// Minimal hop count from `a` to `b`.
    pub fn distance(&self, a: NodeId, b: NodeId) -> u32 {
        (0..self.n()).map(|d| self.minimal_dirs(a, b, d).2).sum()
    }

    /// Dateline class of a hop leaving `node` in direction `dir` of `dim`
    /// toward `dest` (survey §8, Cray T3D; Dally and Seitz in survey §5):
    /// class 0 while the message still has the wraparound link ahead of it in
    /// this dimension (the wraparound link itself included), class 1 once it
    /// has no wraparound link left to cross. A class-0 chain therefore ends at
    /// the wraparound link and no class-1 chain contains it, so neither class
    /// closes a ring.
    pub fn dateline_class(&self, node: NodeId, dest: NodeId, dim: usize, dir: Dir) -> usize {
        let a = self.coord(node, dim);
        let b = self.coord(dest, dim);
        let wraps_ahead = match dir {
            Dir::Plus => b < a,
            Dir::Minus => b > a,
        };
        usize::from(!wraps_ahead)
    }
}

/// Which virtual channels carry each class of a dimension's channels.
///
/// Every algorithm names its channel classes per dimension (dateline
/// classes, planar-adaptive increasing/decreasing/plane classes, escape and
/// adaptive classes). With V virtual channels and C classes: if V >= C,
/// class c is VC c and the extra VCs are virtual lanes added to `lanes_to`
/// (or dealt round-robin over the classes when `None`); if V < C the classes
/// fold onto VC (c mod V), merging classes, which the checker then judges.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VcMap {
    /// `[dim][class]` -> virtual channels.
    pub map: Vec<Vec<Vec<u8>>>,
}

impl VcMap {
    /// Assigns `vcs` virtual channels to the classes of each dimension
    /// (`classes_per_dim[d]` classes in dimension d), extra ones as lanes of
    /// class `lanes_to` or round-robin.
    pub fn new(classes_per_dim: &[usize], vcs: u8, lanes_to: Option<usize>) -> VcMap {
        let map = classes_per_dim
            .iter()
            .map(|&c| assign(c, vcs, lanes_to))
            .collect();
        VcMap { map }
    }

    /// The virtual channels of `class` in dimension `dim`.
    pub fn vcs(&self, dim: usize, class: usize) -> &[u8] {
        &self.map[dim][class]
    }
}

fn assign(classes: usize, vcs: u8, lanes_to: Option<usize>) -> Vec<Vec<u8>> {
    let v = vcs as usize;
    let mut out: Vec<Vec<u8>> = vec![Vec::new(); classes];
    if classes == 0 {
        return out;
    }
    if v < classes {
        for (c, slot) in out.iter_mut().enumerate() {
            slot.push((c % v) as u8);
        }
        return out;
    }
    for (c, slot) in out.iter_mut().enumerate() {
        slot.push(c as u8);
    }
    for extra in classes..v {
        let c = lanes_to.unwrap_or(extra % classes).min(classes - 1);
        out[c].push(extra as u8);
    }
    out
}

/// Test and exploration knobs: each removes one rule from a relation so the
/// checker can show what the rule is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Knobs {
    /// Dateline virtual channels on torus rings (dimension order, planar
    /// adaptive, and the escape channels of *-channels and Duato).
    pub dateline: bool,
    /// The escape sub-function of *-channels and Duato; without it every
    /// virtual channel is adaptive.
    pub escape: bool,
    /// Planar-adaptive on tori: the second dimension's classes also record
    /// the first dimension's dateline phase. Without it each mesh class just
    /// gets a dateline pair, the reading the checker refutes.
    pub plane_phase: bool,
}

impl Default for Knobs {
    fn default() -> Self {
        Knobs {
            dateline: true,
            escape: true,
            plane_phase: true,
        }
    }
}

/// Which routing function a [`Relation`] computes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Kind {
    /// A registered algorithm ([`Algorithm::routing`]).
    Shipped(Algorithm),
    /// Generic 2-D turn model with an explicit set of prohibited turns,
    /// permitting every other turn, minimal or not (survey §6.2): for
    /// exploring the 16 ways to break the two abstract cycles.
    Turns(TurnSet),
    /// One plane slice of planar-adaptive routing on a mesh (Chien §5.2,
    /// Figure 6): [`Relation::plane`].
    Plane(planar_adaptive::Plane),
}

/// A routing relation on a concrete network. Pure and cheap: [`Relation::route`]
/// allocates nothing beyond growing the caller's buffer.
#[derive(Debug, Clone)]
pub struct Relation {
    /// The network it routes on.
    pub net: Network,
    /// Which routing function it computes.
    pub kind: Kind,
    /// Virtual channels per physical channel.
    pub vcs: u8,
    /// The rules in place.
    pub knobs: Knobs,
    /// The virtual channels of each class.
    pub vc_map: VcMap,
}

impl Relation {
    /// The relation of `algorithm` on `net` with `vcs` virtual channels per
    /// physical channel and every rule in place.
    pub fn new(algorithm: Algorithm, net: Network, vcs: u32) -> Result<Relation> {
        Self::with_knobs(algorithm, net, vcs, Knobs::default())
    }

    /// [`Relation::new`] with some rules removed ([`Knobs`]), for the
    /// checker's explorations.
    pub fn with_knobs(
        algorithm: Algorithm,
        net: Network,
        vcs: u32,
        knobs: Knobs,
    ) -> Result<Relation> {
        algorithm.supports(net.topology, net.dims).map_err(|why| {
            Error::invalid(format!(
                "{algorithm} cannot route a {}-dimensional {}: {why}",
                net.dims, net.topology
            ))
        })?;
        let vcs = check_vcs(vcs)?;
        let classes = algorithm.routing().classes(net.topology, net.n(), knobs);
        Ok(Relation {
            net,
            kind: Kind::Shipped(algorithm),
            vcs,
            knobs,
            vc_map: VcMap::new(&classes.per_dim, vcs, classes.lanes_to),
        })
    }

    /// The generic 2-D mesh turn model with `prohibited` turns, one VC.
    pub fn turns(net: Network, prohibited: TurnSet) -> Result<Relation> {
        if net.topology != Topology::Mesh || net.dims != 2 {
            return Err(Error::invalid(
                "the generic turn model is defined on 2-D meshes (survey §6.2)",
            ));
        }
        Ok(Relation {
            net,
            kind: Kind::Turns(prohibited),
            vcs: 1,
            knobs: Knobs::default(),
            vc_map: VcMap::new(&[1, 1], 1, None),
        })
    }

    /// Virtual channels per physical channel the relation's classes need
    /// to stay apart (the deadlock-freedom minimum for its rules).
    pub fn classes_needed(&self) -> usize {
        match &self.kind {
            Kind::Turns(_) => 1,
            Kind::Plane(_) => planar_adaptive::plane_classes(self)
                .into_iter()
                .max()
                .unwrap_or(1),
            Kind::Shipped(a) => a
                .routing()
                .classes(self.net.topology, self.net.n(), self.knobs)
                .needed(),
        }
    }

    /// Dateline classes per ring of this relation: 2 on a torus with the
    /// dateline rule in place, else 1.
    pub fn dateline_classes(&self) -> usize {
        routing::dateline_classes(self.net.topology, self.knobs)
    }

    /// Whether the relation has an escape sub-function (Duato's theory
    /// applies) rather than relying on an acyclic dependency graph.
    pub fn has_escape(&self) -> bool {
        self.knobs.escape && matches!(&self.kind, Kind::Shipped(a) if a.routing().has_escape())
    }

    /// Whether the relation's answer can depend on the input a message
    /// arrived on. Only the generic turn model's does (it permits turns,
    /// which need the direction of travel); every registered algorithm and
    /// every plane slice is a function of (node, destination)
    /// ([`RoutingAlgorithm::route`]), so one question per node and
    /// destination covers all inputs.
    pub fn reads_input(&self) -> bool {
        matches!(self.kind, Kind::Turns(_))
    }

    /// Whether the algorithm's paper claims minimal routing (every shipped
    /// relation here is minimal; the generic turn model is not).
    pub fn claims_minimal(&self) -> bool {
        matches!(&self.kind, Kind::Shipped(a) if a.routing().minimal())
    }

    /// Whether the relation is deterministic (one hop per state, apart from
    /// virtual lanes).
    pub fn is_deterministic(&self) -> bool {
        matches!(&self.kind, Kind::Shipped(a) if a.routing().is_deterministic())
    }

    /// The relation's name in reports: the algorithm, or the turn set or
    /// plane it routes.
    pub fn name(&self) -> String {
        match &self.kind {
            Kind::Shipped(a) => a.to_string(),
            Kind::Turns(t) => format!("turn model prohibiting {t}"),
            Kind::Plane(p) => format!("planar-adaptive plane A_{}", p.index),
        }
    }

    /// Permitted next hops for a message at `node`, arrived on `input`,
    /// headed for `dest`, appended to `out` (which is cleared first). At the
    /// destination the only hop is the local port.
    pub fn route(&self, node: NodeId, input: Input, dest: NodeId, out: &mut Vec<Hop>) {
        out.clear();
        if node == dest {
            out.push(Hop {
                port: Port::Local,
                vc: 0,
                escape: self.has_escape(),
            });
            return;
        }
        match &self.kind {
            Kind::Turns(t) => turn_model::route_turns(self, t, node, input, out),
            Kind::Plane(p) => planar_adaptive::route_plane(self, p, node, dest, out),
            Kind::Shipped(a) => a.routing().route(self, node, dest, out),
        }
    }

    /// [`Relation::route`] into a fresh vector.
    pub fn hops(&self, node: NodeId, input: Input, dest: NodeId) -> Vec<Hop> {
        let mut out = Vec::new();
        self.route(node, input, dest, &mut out);
        out
    }

    /// Pushes one hop per VC of `class` on `port`.
    pub(crate) fn push_class(&self, out: &mut Vec<Hop>, port: Port, class: usize, escape: bool) {
        let Port::Link { dim, .. } = port else {
            return;
        };
        for &vc in self.vc_map.vcs(dim as usize, class) {
            out.push(Hop { port, vc, escape });
        }
    }

    /// Whether a hop is legal for this relation: `dest`-bound message at
    /// `node` on `input` may take (`port`, `vc`). The question a simulator's
    /// scoreboard asks.
    pub fn permits(&self, node: NodeId, input: Input, dest: NodeId, port: Port, vc: u8) -> bool {
        self.hops(node, input, dest)
            .iter()
            .any(|h| h.port == port && h.vc == vc)
    }
}

fn check_vcs(vcs: u32) -> Result<u8> {
    if !(1..=MAX_VCS).contains(&vcs) {
        return Err(Error::invalid(format!(
            "{vcs} virtual channels: a relation takes 1 to {MAX_VCS} per physical channel"
        )));
    }
    Ok(vcs as u8)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn coordinates_round_trip_and_neighbours_wrap_only_on_tori() {
        let mesh = Network::new(Topology::Mesh, 2, 4).unwrap();
        assert_eq!(mesh.node_at(&[1, 2]), 9);
        assert_eq!(mesh.coords(9), vec![1, 2]);
        assert_eq!(mesh.neighbour(3, Port::link(0, Dir::Plus)), None);
        assert_eq!(mesh.neighbour(3, Port::link(0, Dir::Minus)), Some(2));
        assert_eq!(mesh.neighbour(3, Port::link(1, Dir::Plus)), Some(7));
        let torus = Network::new(Topology::Torus, 2, 4).unwrap();
        assert_eq!(torus.neighbour(3, Port::link(0, Dir::Plus)), Some(0));
        assert_eq!(torus.neighbour(0, Port::link(1, Dir::Minus)), Some(12));
        assert!(torus.is_wraparound(3, Port::link(0, Dir::Plus)));
        assert!(!torus.is_wraparound(2, Port::link(0, Dir::Plus)));
    }

    #[test]
    fn hypercube_has_one_link_per_dimension() {
        let h = Network::new(Topology::Hypercube, 4, 7).unwrap();
        assert_eq!(h.radix, 2);
        for node in 0..h.nodes() {
            assert_eq!(h.links(node).len(), 4);
            for p in h.links(node) {
                let m = h.neighbour(node, p).unwrap();
                assert_eq!((node ^ m).count_ones(), 1);
            }
        }
        assert_eq!(h.port_count(), 5);
    }

    #[test]
    fn torus_distance_takes_the_short_way() {
        let t = Network::new(Topology::Torus, 1, 5).unwrap();
        assert_eq!(t.distance(0, 4), 1);
        assert_eq!(t.distance(0, 2), 2);
        assert_eq!(t.minimal_dirs(0, 3, 0), (false, true, 2));
        let e = Network::new(Topology::Torus, 1, 4).unwrap();
        assert_eq!(e.minimal_dirs(0, 2, 0), (true, true, 2));
        assert_eq!(e.dor_dir(0, 2, 0), Some(Dir::Plus));
    }

    #[test]
    fn lanes_go_where_asked_and_classes_fold_below_the_minimum() {
        assert_eq!(assign(3, 5, Some(2)), vec![vec![0], vec![1], vec![2, 3, 4]]);
        assert_eq!(assign(2, 5, None), vec![vec![0, 2, 4], vec![1, 3]]);
        assert_eq!(assign(3, 2, None), vec![vec![0], vec![1], vec![0]]);
    }

    #[test]
    fn bad_shapes_are_errors_not_panics() {
        assert!(Network::new(Topology::Mesh, 0, 4).is_err());
        assert!(Network::new(Topology::Mesh, 2, 1).is_err());
        assert!(Network::new(Topology::Torus, 8, 256).is_err());
        let net = Network::new(Topology::Torus, 2, 4).unwrap();
        assert!(Relation::new(Algorithm::WestFirst, net, 1).is_err());
        assert!(Relation::new(Algorithm::Duato, net, 0).is_err());
    }
}
