//! The turn model (Glass and Ni; survey §6.2; Chien §5.3): deadlock freedom
//! without virtual channels by prohibiting turns.
//!
//! In a 2-D mesh call -x, +x, -y, +y west, east, south and north (survey
//! §6.2). The eight 90-degree turns form two abstract cycles (survey Figure
//! 13a); prohibiting one turn in each breaks them, and of the 16 ways to do
//! so 12 prevent deadlock. The shipped algorithms are minimal, each an
//! object of its own:
//!
//! - west-first ([`super::west_first`]) prohibits the two turns into west
//!   (N->W, S->W): route west first if needed, then adaptively east, north
//!   and south;
//! - north-last ([`super::north_last`]) prohibits the two turns out of
//!   north (N->E, N->W): route adaptively east, west and south, and north
//!   last;
//! - negative-first ([`super::negative_first`]; any n; Chien §5.3)
//!   prohibits every turn from a positive to a negative direction: route
//!   adaptively in all negative directions until there are none, then
//!   adaptively in all positive ones. On a hypercube (a 2-ary mesh) a
//!   negative hop clears a 1 bit.
//!
//! This module holds what they share: the compass, turns and turn sets,
//! where they are defined, their class and their organization (Chien §5.3,
//! Figure 7).
//!
//! Reading: Glass and Ni's turn-model algorithms may also route
//! non-minimally (Chien §5.3 calls the turn model "a non-minimal router");
//! we ship their minimal variants, as LAPSES Figure 7 programs north-last
//! (its table holds only minimal ports), so the checker claims and proves
//! minimality for them.
//!
//! [`TurnSet`] is the generic 2-D form used to explore the 16 ways; its
//! relation permits every non-prohibited turn, minimal or not, and the
//! checker does not claim minimality for it.

use std::fmt;

use super::routing::{unified_organization, ClassLayout};
use super::{Dir, Hop, Input, NodeId, Port, Relation};
use crate::spec::{Organization, RouterDatapath, Topology};

/// A compass direction of a 2-D mesh (survey §6.2).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Compass {
    /// +y.
    North,
    /// +x.
    East,
    /// -y.
    South,
    /// -x.
    West,
}

impl Compass {
    /// The link port of the direction.
    pub fn port(self) -> Port {
        match self {
            Compass::East => Port::link(0, Dir::Plus),
            Compass::West => Port::link(0, Dir::Minus),
            Compass::North => Port::link(1, Dir::Plus),
            Compass::South => Port::link(1, Dir::Minus),
        }
    }

    /// The direction of a link port of dimension 0 or 1; `None` otherwise.
    pub fn of(port: Port) -> Option<Compass> {
        match port {
            Port::Link {
                dim: 0,
                dir: Dir::Plus,
            } => Some(Compass::East),
            Port::Link {
                dim: 0,
                dir: Dir::Minus,
            } => Some(Compass::West),
            Port::Link {
                dim: 1,
                dir: Dir::Plus,
            } => Some(Compass::North),
            Port::Link {
                dim: 1,
                dir: Dir::Minus,
            } => Some(Compass::South),
            _ => None,
        }
    }

    fn letter(self) -> char {
        match self {
            Compass::North => 'N',
            Compass::East => 'E',
            Compass::South => 'S',
            Compass::West => 'W',
        }
    }
}

/// A 90-degree turn from travelling `from` to travelling `to`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Turn {
    /// The direction travelled before the turn.
    pub from: Compass,
    /// The direction travelled after it.
    pub to: Compass,
}

impl fmt::Display for Turn {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}->{}", self.from.letter(), self.to.letter())
    }
}

const fn turn(from: Compass, to: Compass) -> Turn {
    Turn { from, to }
}

use Compass::{East, North, South, West};

/// The clockwise abstract cycle (survey Figure 13a): N->E, E->S, S->W, W->N.
pub const CLOCKWISE: [Turn; 4] = [
    turn(North, East),
    turn(East, South),
    turn(South, West),
    turn(West, North),
];

/// The counter-clockwise abstract cycle: N->W, W->S, S->E, E->N.
pub const COUNTER_CLOCKWISE: [Turn; 4] = [
    turn(North, West),
    turn(West, South),
    turn(South, East),
    turn(East, North),
];

/// A set of prohibited turns of a 2-D mesh.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct TurnSet {
    /// The prohibited turns, sorted, without repeats.
    pub prohibited: Vec<Turn>,
}

impl TurnSet {
    /// The set of `prohibited` turns.
    pub fn new(prohibited: &[Turn]) -> TurnSet {
        let mut p = prohibited.to_vec();
        p.sort();
        p.dedup();
        TurnSet { prohibited: p }
    }

    /// West-first: no turn into west.
    pub fn west_first() -> TurnSet {
        TurnSet::new(&[turn(North, West), turn(South, West)])
    }

    /// North-last: no turn out of north.
    pub fn north_last() -> TurnSet {
        TurnSet::new(&[turn(North, East), turn(North, West)])
    }

    /// Negative-first in 2-D: no turn from a positive to a negative direction.
    pub fn negative_first() -> TurnSet {
        TurnSet::new(&[turn(North, West), turn(East, South)])
    }

    /// Whether turn `t` is prohibited.
    pub fn prohibits(&self, t: Turn) -> bool {
        self.prohibited.contains(&t)
    }

    /// Whether a message travelling `from` (Local: just injected) may leave
    /// on `to`: not a 180-degree turn and not prohibited.
    pub fn allows(&self, from: Port, to: Port) -> bool {
        let (Some(a), Some(b)) = (Compass::of(from), Compass::of(to)) else {
            return true;
        };
        if a == b {
            return true;
        }
        let reverse = matches!(
            (a, b),
            (North, South) | (South, North) | (East, West) | (West, East)
        );
        !reverse && !self.prohibits(turn(a, b))
    }
}

impl fmt::Display for TurnSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let parts: Vec<String> = self.prohibited.iter().map(|t| t.to_string()).collect();
        f.write_str(&parts.join(", "))
    }
}

/// Generic turn model: every existing link whose turn is allowed.
pub(crate) fn route_turns(
    rel: &Relation,
    set: &TurnSet,
    node: NodeId,
    input: Input,
    out: &mut Vec<Hop>,
) {
    for port in rel.net.links(node) {
        if set.allows(input.port, port) {
            rel.push_class(out, port, 0, false);
        }
    }
}

/// Signed offsets (dx, dy) from `node` to `dest` on a 2-D mesh.
pub(crate) fn offsets(rel: &Relation, node: NodeId, dest: NodeId) -> (i64, i64) {
    let net = &rel.net;
    let d = |dim| i64::from(net.coord(dest, dim)) - i64::from(net.coord(node, dim));
    (d(0), d(1))
}

/// Pushes the hop toward compass direction `c` on the one class.
pub(crate) fn push(rel: &Relation, out: &mut Vec<Hop>, c: Compass) {
    rel.push_class(out, c.port(), 0, false);
}

/// Where the turn model algorithm `name` is defined: meshes and
/// hypercubes, and only 2-D meshes when it names `compass` directions
/// (west-first, north-last).
pub(crate) fn supports(
    name: &str,
    compass: bool,
    topology: Topology,
    dims: u32,
) -> Result<(), String> {
    match topology {
        Topology::Torus => Err(format!(
            "the turn model ({name}) is implemented for meshes and hypercubes; on a \
             torus its wraparound channels need turn rules of their own (survey §6.2, \
             step 5) that routergen does not provide: use topology = mesh, or an \
             algorithm defined on tori (dor, planar, star-channels, duato)"
        )),
        Topology::Mesh if compass && dims != 2 => Err(format!(
            "{name} names compass directions of a 2-D mesh (survey §6.2), so it needs \
             dims = 2; negative-first is the turn-model variant for any dimension"
        )),
        Topology::UniTorus => Err(super::routing::one_way_refusal(&format!(
            "the turn model ({name})"
        ))),
        Topology::Hypercube if compass => Err(format!(
            "{name} names compass directions of a 2-D mesh (survey §6.2); on a \
             hypercube use negative-first"
        )),
        _ => Ok(()),
    }
}

/// The turn model's one class per dimension: it needs no virtual channel
/// beyond the one (Chien §5.3).
pub(crate) fn classes(dims: usize) -> ClassLayout {
    ClassLayout::uniform(dims, 1)
}

/// Figure 7: one (2n+1)x(2n+1) crossbar, the +1 being the local port.
pub(crate) fn organization(topology: Topology, dims: u32) -> Organization {
    unified_organization(topology, dims, 1)
}

/// Why the turn model's organization is Figure 7's.
pub(crate) const ORGANIZATION_REASON: &str =
    "all inputs to all outputs plus the local port, Chien §5.3 Figure 7";

/// The datapaths the turn-model routers are built with: the unified
/// crossbar, Chien's own organization for them.
pub(crate) const DATAPATHS: &[RouterDatapath] = &[RouterDatapath::Unified];

#[cfg(test)]
mod tests {
    use super::super::Network;
    use super::*;
    use crate::spec::{Algorithm, Topology};

    /// Every turn the relation takes on any minimal path, found by walking
    /// all paths between all pairs.
    fn turns_taken(rel: &Relation) -> Vec<Turn> {
        let net = rel.net;
        let mut seen = Vec::new();
        for s in 0..net.nodes() {
            for d in 0..net.nodes() {
                let mut stack = vec![(s, Port::Local)];
                while let Some((node, came)) = stack.pop() {
                    if node == d {
                        continue;
                    }
                    for h in rel.hops(node, Input { port: came, vc: 0 }, d) {
                        if let (Some(a), Some(b)) = (Compass::of(came), Compass::of(h.port)) {
                            if a != b && !seen.contains(&turn(a, b)) {
                                seen.push(turn(a, b));
                            }
                        }
                        stack.push((net.neighbour(node, h.port).unwrap(), h.port));
                    }
                }
            }
        }
        seen
    }

    #[test]
    fn shipped_2d_turn_models_never_take_their_prohibited_turns() {
        let net = Network::new(Topology::Mesh, 2, 4).unwrap();
        for (algo, set) in [
            (Algorithm::WestFirst, TurnSet::west_first()),
            (Algorithm::NorthLast, TurnSet::north_last()),
            (Algorithm::NegativeFirst, TurnSet::negative_first()),
        ] {
            let rel = Relation::new(algo, net, 1).unwrap();
            let taken = turns_taken(&rel);
            for t in &set.prohibited {
                assert!(!taken.contains(t), "{algo} takes prohibited turn {t}");
            }
            // And it is adaptive: it takes all six remaining turns.
            assert_eq!(taken.len(), 6, "{algo} takes {taken:?}");
        }
    }

    #[test]
    fn negative_first_goes_negative_before_positive_in_three_dimensions() {
        let net = Network::new(Topology::Mesh, 3, 4).unwrap();
        let rel = Relation::new(Algorithm::NegativeFirst, net, 1).unwrap();
        let hops = rel.hops(
            net.node_at(&[2, 0, 3]),
            Input::INJECTED,
            net.node_at(&[0, 3, 1]),
        );
        let ports: Vec<Port> = hops.iter().map(|h| h.port).collect();
        assert_eq!(
            ports,
            vec![Port::link(0, Dir::Minus), Port::link(2, Dir::Minus)]
        );
    }

    #[test]
    fn the_two_abstract_cycles_hold_all_eight_turns() {
        let mut all: Vec<Turn> = CLOCKWISE
            .iter()
            .chain(&COUNTER_CLOCKWISE)
            .copied()
            .collect();
        all.sort();
        all.dedup();
        assert_eq!(all.len(), 8);
    }
}
