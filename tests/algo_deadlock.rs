//! The checker on concrete networks: every shipped relation is proved, and
//! each relation with one rule removed is rejected with a genuine cycle.

use routergen::algo::check::{check, Report, Verdict};
use routergen::algo::{Channel, Dir, Input, Knobs, Network, Port, Relation};
use routergen::spec::names::Named;
use routergen::spec::{Algorithm, Topology};

fn net(t: Topology, n: u32, k: u32) -> Network {
    Network::new(t, n, k).unwrap()
}

/// Where a channel leads, computed here from coordinates (row-major, dim 0
/// fastest), not by the network model.
fn head(k: u32, n: u32, torus: bool, c: Channel) -> Option<u32> {
    let Port::Link { dim, dir } = c.port else {
        return None;
    };
    let mut coords: Vec<u32> = (0..n).map(|d| (c.node / k.pow(d)) % k).collect();
    let x = &mut coords[dim as usize];
    *x = match (dir, torus) {
        (Dir::Plus, _) if *x + 1 < k => *x + 1,
        (Dir::Plus, true) => 0,
        (Dir::Minus, _) if *x > 0 => *x - 1,
        (Dir::Minus, true) => k - 1,
        _ => return None,
    };
    Some(coords.iter().rev().fold(0, |a, &v| a * k + v))
}

/// Hop distance, from coordinates, written here independently of the model.
fn distance(k: u32, n: u32, torus: bool, a: u32, b: u32) -> u32 {
    (0..n)
        .map(|d| {
            let (x, y) = ((a / k.pow(d)) % k, (b / k.pow(d)) % k);
            let straight = x.abs_diff(y);
            if torus {
                straight.min(k - straight)
            } else {
                straight
            }
        })
        .sum()
}

/// A reported cycle must be a real dependency cycle. Plain graph: consecutive
/// channels adjacent, each step a hop the relation permits toward some
/// destination, arriving on the previous channel. Extended graph (escape
/// relations): for some destination x, the next channel is an escape hop
/// toward x lying on a minimal path from the previous channel's head to x.
fn assert_genuine_cycle(rel: &Relation, cycle: &[Channel]) {
    let n = rel.net;
    let torus = matches!(n.topology, Topology::Torus | Topology::UniTorus);
    let (k, dims) = (n.radix, n.dims);
    assert!(cycle.len() >= 2, "cycle {cycle:?}");
    for i in 0..cycle.len() {
        let (a, b) = (cycle[i], cycle[(i + 1) % cycle.len()]);
        let ha = head(k, dims, torus, a).expect("a channel on an existing link");
        if rel.has_escape() {
            let ok = (0..n.nodes()).any(|x| {
                let escape_hop = rel
                    .hops(b.node, Input::INJECTED, x)
                    .iter()
                    .any(|h| h.escape && h.port == b.port && h.vc == b.vc);
                escape_hop
                    && distance(k, dims, torus, ha, b.node) + distance(k, dims, torus, b.node, x)
                        == distance(k, dims, torus, ha, x)
            });
            assert!(ok, "{a:?} -> {b:?} is not an extended dependency");
        } else {
            assert_eq!(ha, b.node, "{a:?} -> {b:?} not adjacent");
            let input = Input {
                port: a.port,
                vc: a.vc,
            };
            assert!(
                (0..n.nodes()).any(|d| rel.permits(b.node, input, d, b.port, b.vc)),
                "{a:?} -> {b:?} is not a dependency"
            );
        }
    }
}

fn deadlock(report: &Report) -> &[Channel] {
    assert_eq!(
        report.verdict,
        Verdict::DeadlockPossible,
        "{}",
        report.to_text()
    );
    report.cycle().expect("a deadlock verdict carries a cycle")
}

// survey §5: "messages being routed along the same dimension (a single
// dimension forms a ring) may be involved in a deadlock due to cyclic
// dependency"; the cycle is one ring.
#[test]
fn dimension_order_on_a_torus_without_datelines_is_deadlock_prone() {
    for k in [4, 5] {
        let network = net(Topology::Torus, 2, k);
        let knobs = Knobs {
            dateline: false,
            ..Knobs::default()
        };
        let rel = Relation::with_knobs(Algorithm::DimensionOrder, network, 2, knobs).unwrap();
        let report = check(&rel, false);
        let cycle = deadlock(&report);
        assert_genuine_cycle(&rel, cycle);
        assert_eq!(cycle.len() as u32, k, "a ring of k channels");
        // Same rule on, same VCs: proved.
        let with = Relation::new(Algorithm::DimensionOrder, network, 2).unwrap();
        assert!(check(&with, false).proved());
    }
}

// Duato's theorem needs a connected escape sub-function (survey §4.2,
// Theorem 2): take it away and fully adaptive routing is rejected.
#[test]
fn duato_without_its_escape_channels_is_rejected() {
    for (t, k, v) in [
        (Topology::Mesh, 4, 2),
        (Topology::Torus, 5, 3),
        (Topology::Hypercube, 2, 2),
    ] {
        let n = if t == Topology::Hypercube { 3 } else { 2 };
        let network = net(t, n, k);
        let knobs = Knobs {
            escape: false,
            ..Knobs::default()
        };
        let rel = Relation::with_knobs(Algorithm::Duato, network, v, knobs).unwrap();
        let report = check(&rel, false);
        assert!(!report.proved());
        assert_genuine_cycle(&rel, deadlock(&report));
        assert!(check(&Relation::new(Algorithm::Duato, network, v).unwrap(), false).proved());
    }
}

// The escape channels of *-channels are what make it deadlock-free too.
#[test]
fn star_channels_without_star_channels_is_rejected() {
    let network = net(Topology::Torus, 2, 4);
    let knobs = Knobs {
        escape: false,
        ..Knobs::default()
    };
    let rel = Relation::with_knobs(Algorithm::StarChannels, network, 3, knobs).unwrap();
    assert_genuine_cycle(&rel, deadlock(&check(&rel, false)));
}

// The escape sub-function of Duato on a torus without datelines: the
// extended dependency graph has the ring cycle.
#[test]
fn duato_on_a_torus_needs_dateline_escape_channels() {
    let network = net(Topology::Torus, 2, 4);
    let knobs = Knobs {
        dateline: false,
        ..Knobs::default()
    };
    let rel = Relation::with_knobs(Algorithm::Duato, network, 3, knobs).unwrap();
    let report = check(&rel, false);
    let cycle = deadlock(&report);
    assert!(report.escape.is_some());
    // Every channel of an extended-graph cycle is an escape channel.
    assert!(cycle.iter().all(|c| c.vc == 0), "{cycle:?}");
}

// Planar-adaptive routing on a torus needs its dateline classes.
#[test]
fn planar_adaptive_on_a_torus_without_datelines_is_deadlock_prone() {
    let network = net(Topology::Torus, 2, 4);
    let knobs = Knobs {
        dateline: false,
        ..Knobs::default()
    };
    let rel = Relation::with_knobs(Algorithm::PlanarAdaptive, network, 8, knobs).unwrap();
    assert_genuine_cycle(&rel, deadlock(&check(&rel, false)));
}

fn shapes(algorithm: Algorithm) -> Vec<(Topology, u32, u32)> {
    let all = [
        (Topology::Mesh, 2, 3),
        (Topology::Mesh, 2, 4),
        (Topology::Mesh, 2, 5),
        (Topology::Mesh, 3, 3),
        (Topology::Mesh, 3, 4),
        (Topology::Torus, 2, 3),
        (Topology::Torus, 2, 4),
        (Topology::Torus, 2, 5),
        (Topology::Torus, 3, 3),
        (Topology::Torus, 3, 4),
        (Topology::Hypercube, 3, 2),
        (Topology::Hypercube, 4, 2),
        (Topology::UniTorus, 2, 3),
        (Topology::UniTorus, 2, 4),
        (Topology::UniTorus, 3, 3),
    ];
    all.into_iter()
        .filter(|&(t, n, _)| algorithm.supports(t, n).is_ok())
        .collect()
}

// The issue: "every shipped algorithm is proved on several (k, n),
// including k odd and even", with its minimum VCs and with extra lanes.
#[test]
fn every_shipped_algorithm_is_proved_with_its_minimum_and_with_lanes() {
    for algorithm in Algorithm::all() {
        let shapes = shapes(algorithm);
        assert!(shapes.len() >= 3, "{algorithm}: {shapes:?}");
        let mut radices: Vec<u32> = shapes.iter().map(|s| s.2).collect();
        radices.sort();
        radices.dedup();
        if algorithm != Algorithm::WestFirst && algorithm != Algorithm::NorthLast {
            assert!(radices.iter().any(|k| k % 2 == 1) && radices.iter().any(|k| k % 2 == 0));
        }
        for (t, n, k) in shapes {
            let min = algorithm.min_vcs(t, n);
            for v in [min, min + 1] {
                let rel = Relation::new(algorithm, net(t, n, k), v).unwrap();
                let report = check(&rel, false);
                assert!(
                    report.proved(),
                    "{algorithm} {k}-ary {n}-D {t}, V={v}:\n{}",
                    report.to_text()
                );
                assert_eq!(report.connected, Ok((k.pow(n) * (k.pow(n) - 1)) as usize));
            }
        }
    }
}

/// Where the algorithm's file says one VC fewer than `min_vcs` deadlocks
/// (the checker finds a cycle). A match without a wildcard: registering an
/// algorithm means saying here where its minimum is tight.
fn one_fewer_deadlocks(algorithm: Algorithm, t: Topology, n: u32, k: u32) -> bool {
    match algorithm {
        // The ring cycle, on rings long enough to be used twice in a row by
        // one message (k >= 4); on 3-rings 1 VC would do.
        // On a unidirectional ring every message of two hops or more
        // chains two of its channels (k >= 3).
        Algorithm::DimensionOrder => {
            (t == Topology::Torus && k >= 4) || (t == Topology::UniTorus && k >= 3)
        }
        // 1 VC in 2-D meshes (Chien footnote 4 counts 2); with 2 VCs on
        // n >= 3 meshes the checker proves it (the module comment); on tori
        // one fewer than 8 or 10 deadlocks on the 5-ary 2-cube and the
        // 4-ary 3-cube.
        Algorithm::PlanarAdaptive => match t {
            Topology::Mesh => n == 2,
            Topology::Torus => (n, k) == (2, 5) || (n, k) == (3, 4),
            Topology::Hypercube | Topology::UniTorus => false,
        },
        Algorithm::NegativeFirst | Algorithm::WestFirst | Algorithm::NorthLast => false,
        // A cycle with 2 VCs once there is a second dimension to turn into.
        Algorithm::StarChannels => n >= 2,
        // A cycle with one fewer everywhere but on single odd rings, where
        // the adaptive hop is the escape hop.
        Algorithm::Duato => n >= 2 || t != Topology::Torus,
    }
}

// min_vcs is the least V at which the relation keeps its classes apart
// (for Duato on a 2-D torus, Quaglia et al. §3 also give three); one fewer
// merges two classes, and where the algorithm's file says so the checker
// finds the cycle.
#[test]
fn one_vc_below_the_minimum_is_rejected() {
    for algorithm in Algorithm::all() {
        let mut shapes = shapes(algorithm);
        shapes.push((Topology::Torus, 1, 5));
        shapes.push((Topology::Mesh, 4, 3));
        let mut refuted = 0;
        for (t, n, k) in shapes {
            if algorithm.supports(t, n).is_err() || !one_fewer_deadlocks(algorithm, t, n, k) {
                continue;
            }
            let min = algorithm.min_vcs(t, n);
            let rel = Relation::new(algorithm, net(t, n, k), min - 1).unwrap();
            let report = check(&rel, false);
            assert_eq!(
                report.verdict,
                Verdict::DeadlockPossible,
                "{algorithm} {k}-ary {n}-D {t} V={}",
                min - 1
            );
            assert_genuine_cycle(&rel, report.cycle().unwrap());
            refuted += 1;
        }
        let needs_more = [Topology::Mesh, Topology::Torus, Topology::Hypercube]
            .into_iter()
            .any(|t| algorithm.supports(t, 2).is_ok() && algorithm.min_vcs(t, 2) > 1);
        assert_eq!(needs_more, refuted > 0, "{algorithm}: {refuted} refuted");
    }
}

// A 3-ring: minimal paths take at most one hop per dimension, so dimension
// order needs no dateline there; the checker knows.
#[test]
fn dimension_order_on_three_rings_needs_no_dateline() {
    let rel = Relation::new(Algorithm::DimensionOrder, net(Topology::Torus, 2, 3), 1).unwrap();
    assert!(check(&rel, false).proved());
}

// A finding, not a paper number: with V = 2 on an n >= 3 mesh the plane
// class of d_i folds onto the increasing class of d_i (VcMap folds class c
// onto VC c mod V), and the checker still proves the relation. Chien §5.2
// counts 3; min_vcs keeps the paper's number. Why it holds: for the lowest
// dimension q of a would-be cycle, turning from q+ to q- needs a hop on the
// decreasing class of d_{q+1}, which only a message already travelling q-
// takes.
#[test]
fn planar_adaptive_on_higher_dimensional_meshes_is_proved_with_two_vcs() {
    for (n, k) in [(3, 3), (3, 4), (4, 3)] {
        let rel = Relation::new(Algorithm::PlanarAdaptive, net(Topology::Mesh, n, k), 2).unwrap();
        let report = check(&rel, false);
        assert!(report.proved(), "{}", report.to_text());
    }
    // One VC is not enough even in 2-D.
    let rel = Relation::new(Algorithm::PlanarAdaptive, net(Topology::Mesh, 3, 3), 1).unwrap();
    assert_eq!(check(&rel, false).verdict, Verdict::DeadlockPossible);
}

// The obvious torus reading of planar-adaptive routing, a dateline pair for
// each mesh class (4 VCs in 2-D), is refuted: a cycle spirals through both
// dimensions of the plane (src/algo/planar_adaptive.rs). Recording the
// first dimension's dateline phase in the second dimension's classes fixes
// it.
#[test]
fn planar_adaptive_torus_needs_the_plane_phase() {
    for k in [4, 5] {
        let network = net(Topology::Torus, 2, k);
        let knobs = Knobs {
            plane_phase: false,
            ..Knobs::default()
        };
        let rel = Relation::with_knobs(Algorithm::PlanarAdaptive, network, 4, knobs).unwrap();
        assert_eq!(rel.classes_needed(), 4);
        let report = check(&rel, false);
        let cycle = deadlock(&report);
        assert_genuine_cycle(&rel, cycle);
        // The spiral uses both dimensions.
        let dims: Vec<u8> = cycle
            .iter()
            .filter_map(|c| match c.port {
                Port::Link { dim, .. } => Some(dim),
                Port::Local => None,
            })
            .collect();
        assert!(dims.contains(&0) && dims.contains(&1), "{cycle:?}");
    }
}
