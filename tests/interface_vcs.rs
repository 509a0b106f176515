//! docs/interface.md, "Which VC is which", as a neighbour model written
//! from the page alone, checked against every hop the routing relations
//! permit on small networks.

use std::collections::BTreeSet;

use routergen::algo::{Dir, Input, Network, NodeId, Port, Relation};
use routergen::spec::{Algorithm, Topology};

/// The VCs of class `c` among `classes` with `v` VCs (the page's rule:
/// class c is VC c, extra VCs dealt round robin or to `lanes_to`; below
/// the class count, c mod V).
fn class_vcs(c: usize, classes: usize, v: usize, lanes_to: Option<usize>) -> Vec<u8> {
    if v < classes {
        return vec![(c % v) as u8];
    }
    let mut out = vec![c as u8];
    for extra in classes..v {
        if lanes_to.unwrap_or(extra % classes) == c {
            out.push(extra as u8);
        }
    }
    out
}

/// Dateline class of a hop from coordinate `a` toward `b` going `dir`: 0
/// while the wraparound link is still ahead, 1 once none is left.
fn dateline(a: u32, b: u32, dir: Dir) -> usize {
    let ahead = match dir {
        Dir::Plus => b < a,
        Dir::Minus => b > a,
    };
    usize::from(!ahead)
}

/// The minimal directions in one dimension, + alone on a tie unless
/// `both_on_tie`.
fn directions(net: &Network, a: u32, b: u32, both_on_tie: bool) -> Vec<Dir> {
    if a == b {
        return vec![];
    }
    if net.topology != Topology::Torus {
        return vec![if b > a { Dir::Plus } else { Dir::Minus }];
    }
    let k = net.radix;
    let fwd = (b + k - a) % k;
    let back = k - fwd;
    match fwd.cmp(&back) {
        std::cmp::Ordering::Less => vec![Dir::Plus],
        std::cmp::Ordering::Greater => vec![Dir::Minus],
        std::cmp::Ordering::Equal if both_on_tie => vec![Dir::Plus, Dir::Minus],
        std::cmp::Ordering::Equal => vec![Dir::Plus],
    }
}

/// The page's (port, VC) set for a packet injected at `node` for `dest`.
fn documented(
    algo: Algorithm,
    net: &Network,
    v: usize,
    node: NodeId,
    dest: NodeId,
) -> BTreeSet<(Port, u8)> {
    let torus = net.topology == Topology::Torus;
    let ring = if torus { 2 } else { 1 };
    let mut out = BTreeSet::new();
    let c = |d: usize| (net.coord(node, d), net.coord(dest, d));
    let lowest = (0..net.n()).find(|&d| c(d).0 != c(d).1);
    let mut add = |d: usize, dir: Dir, vcs: Vec<u8>| {
        for vc in vcs {
            out.insert((Port::link(d, dir), vc));
        }
    };
    match algo {
        Algorithm::DimensionOrder => {
            if let Some(d) = lowest {
                let (a, b) = c(d);
                let dir = directions(net, a, b, false)[0];
                let class = if torus { dateline(a, b, dir) } else { 0 };
                add(d, dir, class_vcs(class, ring, v, None));
            }
        }
        Algorithm::Duato | Algorithm::StarChannels => {
            let star = algo == Algorithm::StarChannels;
            let mut escape_hop = None;
            if let Some(d) = lowest {
                let (a, b) = c(d);
                let dir = directions(net, a, b, false)[0];
                let class = if torus { dateline(a, b, dir) } else { 0 };
                add(d, dir, class_vcs(class, ring + 1, v, Some(ring)));
                escape_hop = Some((d, dir));
            }
            for d in 0..net.n() {
                let (a, b) = c(d);
                for dir in directions(net, a, b, true) {
                    // *-channels: the dimension-order hop is star-only.
                    if !(star && escape_hop == Some((d, dir))) {
                        add(d, dir, class_vcs(ring, ring + 1, v, Some(ring)));
                    }
                }
            }
        }
        Algorithm::PlanarAdaptive => {
            let n = net.n();
            let Some(low) = lowest else { return out };
            let i = low.min(n - 2);
            let classes = |d: usize| {
                let second = if d >= 1 { 2 * ring * ring } else { 0 };
                second + if d + 1 < n { ring } else { 0 }
            };
            let (a0, b0) = c(i);
            let first_dir = directions(net, a0, b0, false).first().copied();
            if let Some(dir) = first_dir {
                let base = if i >= 1 { 2 * ring * ring } else { 0 };
                let class = base + if torus { dateline(a0, b0, dir) } else { 0 };
                add(i, dir, class_vcs(class, classes(i), v, None));
            }
            let (a1, b1) = c(i + 1);
            if let Some(&dir) = directions(net, a1, b1, false).first() {
                let s = usize::from(first_dir == Some(Dir::Minus));
                let class = if torus {
                    let phase = dateline(a0, b0, first_dir.unwrap_or(Dir::Plus));
                    (s * 2 + phase) * 2 + dateline(a1, b1, dir)
                } else {
                    s
                };
                add(i + 1, dir, class_vcs(class, classes(i + 1), v, None));
            }
        }
        _ => unreachable!("not modelled"),
    }
    out
}

#[test]
fn every_hop_takes_the_vcs_the_interface_page_names() {
    let cases = [
        (Algorithm::DimensionOrder, Topology::Mesh, 2, 4, 2),
        (Algorithm::DimensionOrder, Topology::Torus, 2, 4, 2),
        (Algorithm::DimensionOrder, Topology::Torus, 2, 5, 3),
        (Algorithm::DimensionOrder, Topology::Hypercube, 3, 2, 1),
        (Algorithm::Duato, Topology::Mesh, 2, 4, 3),
        (Algorithm::Duato, Topology::Torus, 2, 4, 4),
        (Algorithm::Duato, Topology::Hypercube, 3, 2, 2),
        (Algorithm::StarChannels, Topology::Torus, 2, 5, 3),
        (Algorithm::PlanarAdaptive, Topology::Mesh, 2, 4, 2),
        (Algorithm::PlanarAdaptive, Topology::Mesh, 3, 3, 3),
        (Algorithm::PlanarAdaptive, Topology::Mesh, 3, 3, 4),
        (Algorithm::PlanarAdaptive, Topology::Torus, 2, 4, 8),
        (Algorithm::PlanarAdaptive, Topology::Torus, 3, 4, 10),
    ];
    for (algo, topology, n, k, v) in cases {
        let net = Network::new(topology, n, k).unwrap();
        let rel = Relation::new(algo, net, v).unwrap();
        for node in 0..net.nodes() {
            for dest in (0..net.nodes()).filter(|&d| d != node) {
                let got: BTreeSet<(Port, u8)> = rel
                    .hops(node, Input::INJECTED, dest)
                    .into_iter()
                    .map(|h| (h.port, h.vc))
                    .collect();
                let want = documented(algo, &net, v as usize, node, dest);
                assert_eq!(
                    got,
                    want,
                    "{algo} on a {k}-ary {n}-D {topology}, V = {v}, at {} for {}",
                    net.node_name(node),
                    net.node_name(dest)
                );
            }
        }
    }
}
