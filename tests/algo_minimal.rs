//! Minimality (survey §4.1: "the message traverses closer to its destination
//! after every hop"): for random networks and source/destination pairs,
//! every hop a shipped relation permits reduces the distance, measured by a
//! breadth-first search written here over coordinates, independent of the
//! network model; and any walk choosing among permitted hops arrives in
//! exactly that many hops.

use std::collections::VecDeque;

use proptest::prelude::*;
use routergen::algo::{Dir, Input, Network, Port, Relation};
use routergen::spec::{Algorithm, Topology};

/// Neighbour across (dim, dir), from coordinates (row-major, dim 0 fastest).
fn step(t: Topology, k: u32, n: u32, node: u32, dim: u32, dir: Dir) -> Option<u32> {
    let p = k.pow(dim);
    let c = (node / p) % k;
    let next = match dir {
        Dir::Plus if c + 1 < k => c + 1,
        Dir::Plus if t == Topology::Torus => 0,
        Dir::Minus if c > 0 => c - 1,
        Dir::Minus if t == Topology::Torus => k - 1,
        _ => return None,
    };
    let _ = n;
    Some(node - c * p + next * p)
}

/// Hop distances from every node to `dest`, by BFS over the links.
fn bfs(t: Topology, k: u32, n: u32, dest: u32) -> Vec<u32> {
    let nodes = k.pow(n);
    let mut dist = vec![u32::MAX; nodes as usize];
    dist[dest as usize] = 0;
    let mut q = VecDeque::from([dest]);
    while let Some(v) = q.pop_front() {
        for dim in 0..n {
            for dir in [Dir::Plus, Dir::Minus] {
                if let Some(w) = step(t, k, n, v, dim, dir) {
                    if dist[w as usize] == u32::MAX {
                        dist[w as usize] = dist[v as usize] + 1;
                        q.push_back(w);
                    }
                }
            }
        }
    }
    dist
}

fn case() -> impl Strategy<Value = (Algorithm, Topology, u32, u32, u32, u32, Vec<u8>, u32)> {
    let algos = prop::sample::select(vec![
        Algorithm::DimensionOrder,
        Algorithm::PlanarAdaptive,
        Algorithm::WestFirst,
        Algorithm::NorthLast,
        Algorithm::NegativeFirst,
        Algorithm::StarChannels,
        Algorithm::Duato,
    ]);
    let topo = prop::sample::select(vec![Topology::Mesh, Topology::Torus, Topology::Hypercube]);
    (
        algos,
        topo,
        1u32..=4,
        2u32..=7,
        any::<u32>(),
        any::<u32>(),
        prop::collection::vec(any::<u8>(), 0..64),
        0u32..=2,
    )
        .prop_filter("algorithm must support the topology", |(a, t, n, ..)| {
            a.supports(*t, *n).is_ok()
        })
        .prop_map(|(a, t, n, k, s, d, choices, extra)| {
            let k = if t == Topology::Hypercube { 2 } else { k };
            let n = if t == Topology::Hypercube {
                n + 1
            } else {
                n.min(3)
            };
            let nodes = k.pow(n);
            (a, t, n, k, s % nodes, d % nodes, choices, extra)
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn every_permitted_hop_reduces_the_distance((a, t, n, k, src, dst, choices, extra) in case()) {
        prop_assume!(a.supports(t, n).is_ok());
        let net = Network::new(t, n, k).unwrap();
        let v = a.min_vcs(t, n) + extra;
        let rel = Relation::new(a, net, v).unwrap();
        let dist = bfs(t, k, n, dst);
        let mut node = src;
        let mut input = Input::INJECTED;
        let mut hops_taken = 0;
        let mut i = 0;
        while node != dst {
            let hops = rel.hops(node, input, dst);
            prop_assert!(!hops.is_empty(), "{a} offers nothing at {node} toward {dst}");
            for h in &hops {
                let Port::Link { dim, dir } = h.port else {
                    return Err(TestCaseError::fail(format!("{a}: local port before the destination")));
                };
                let next = step(t, k, n, node, dim as u32, dir);
                prop_assert!(next.is_some(), "{a}: {} does not exist at {node}", h.port);
                prop_assert_eq!(dist[next.unwrap() as usize] + 1, dist[node as usize],
                    "{} at {} toward {}: {} vc{} is not minimal", a, node, dst, h.port, h.vc);
                prop_assert!((h.vc as u32) < v);
            }
            let pick = hops[choices.get(i).copied().unwrap_or(0) as usize % hops.len()];
            i += 1;
            let Port::Link { dim, dir } = pick.port else { unreachable!() };
            node = step(t, k, n, node, dim as u32, dir).unwrap();
            input = Input { port: pick.port, vc: pick.vc };
            hops_taken += 1;
        }
        prop_assert_eq!(hops_taken, dist[src as usize]);
        // At the destination the only hop is the local port.
        let last = rel.hops(dst, input, dst);
        prop_assert_eq!(last.len(), 1);
        prop_assert_eq!(last[0].port, Port::Local);
    }
}
