//! The routing tables (`table`): loaded at reset they route as the
//! relation; reprogrammed through `cfg_*` they route as programmed.

use super::*;

/// The economical-storage table loaded at reset routes as the relation:
/// LAPSES Figure 7's north-last on a mesh, Duato, planar-adaptive in 3-D,
/// negative-first on a hypercube (its sign is the node's bit).
#[test]
fn scoreboard_economical_storage_table() {
    for (s, at) in [
        (economical(spec(Algorithm::NorthLast, 3, 1)), vec![1, 1]),
        (
            economical(spec_with(Algorithm::Duato, 4, 2, PathSelection::Lru)),
            vec![2, 1],
        ),
        (
            economical(spec_on(Algorithm::PlanarAdaptive, Topology::Mesh, 3, 3, 3)),
            vec![1, 0, 2],
        ),
        (
            economical(spec_on(
                Algorithm::NegativeFirst,
                Topology::Hypercube,
                3,
                2,
                1,
            )),
            vec![1, 0, 1],
        ),
    ] {
        let node = node_at(&s, &at);
        let cycles = run(&s, node, 12, 0xe5 + at.len() as u64);
        eprintln!("{}: {cycles} cycles", s.name());
    }
}

/// The full table loaded at reset routes as the relation at every node it
/// is placed: dimension order on a mesh (a corner) and on a torus (its
/// dateline classes in the entries' VC classes), Duato on a mesh, and
/// negative-first on a hypercube.
#[test]
fn scoreboard_full_table() {
    for (s, at) in [
        (
            full_table(spec(Algorithm::DimensionOrder, 4, 1)),
            vec![0, 3],
        ),
        (
            full_table(spec_on(Algorithm::DimensionOrder, Topology::Torus, 2, 4, 2)),
            vec![3, 1],
        ),
        (
            full_table(spec_with(Algorithm::Duato, 4, 2, PathSelection::Lru)),
            vec![2, 1],
        ),
        (
            full_table(spec_on(
                Algorithm::NegativeFirst,
                Topology::Hypercube,
                3,
                2,
                1,
            )),
            vec![1, 0, 1],
        ),
    ] {
        let node = node_at(&s, &at);
        let cycles = run(&s, node, 10, 0xf0 + at.len() as u64);
        eprintln!("{}: {cycles} cycles", s.name());
    }
}

/// The meta table loaded at reset routes as the relation (the scoreboard)
/// on a mesh, a torus, north-last and a 4-cube.
#[test]
fn scoreboard_meta_table() {
    for (s, at) in [
        (
            meta_table(spec(Algorithm::DimensionOrder, 4, 1)),
            vec![1, 2],
        ),
        (
            meta_table(spec_on(Algorithm::DimensionOrder, Topology::Torus, 2, 4, 2)),
            vec![3, 0],
        ),
        (meta_table(spec(Algorithm::NorthLast, 4, 1)), vec![1, 1]),
        (
            meta_table(spec_on(
                Algorithm::DimensionOrder,
                Topology::Hypercube,
                4,
                2,
                1,
            )),
            vec![1, 0, 1, 1],
        ),
    ] {
        let node = node_at(&s, &at);
        let cycles = run(&s, node, 10, 0x3e + at.len() as u64);
        eprintln!("{}: {cycles} cycles", s.name());
    }
}

/// The meta table narrows the relation (LAPSES §5.1.1): north-last on a
/// 4x4 mesh, clusters = columns (worked by hand: with rows, (0,0) toward
/// row 3 would keep nothing: (0,3) permits +y only, (1,3) +x only). The
/// model here: toward a node of another column, the (port, VC) pairs the
/// relation permits toward every node of that column; of its own column,
/// the relation's. From every router to every destination a packet on an
/// idle router must leave by one of them, and somewhere the model is
/// narrower than the relation.
#[test]
fn meta_table_routes_only_what_a_cluster_entry_keeps() {
    let s = meta_table(spec(Algorithm::NorthLast, 4, 1));
    let net = Network::new(s.topology, s.dims, s.radix).unwrap();
    let rel = Relation::new(s.algorithm, net, s.vcs).unwrap();
    let k = s.radix;
    let mut narrowed = 0;
    for node in 0..net.nodes() {
        let mut r = Router::<16>::new(&s).unwrap();
        crate::blocks::prepare(&mut r);
        let x = net.coord(node, 0);
        r.node_id.next = node_id_of(&s, &net, node).into();
        for dest in (0..net.nodes()).filter(|&d| d != node) {
            let dx = net.coord(dest, 0);
            let members: Vec<NodeId> = if dx == x {
                vec![dest]
            } else {
                (0..k).map(|yy| net.node_at(&[dx, yy])).collect()
            };
            let allowed: Vec<(usize, usize)> = (0..net.port_count())
                .flat_map(|p| (0..s.vcs as usize).map(move |v| (p, v)))
                .filter(|&(p, v)| {
                    members.iter().all(|&m| {
                        rel.permits(node, Input::INJECTED, m, port_of(&net, node, p), v as u8)
                    })
                })
                .collect();
            let relation = rel.hops(node, Input::INJECTED, dest).len();
            narrowed += usize::from(allowed.len() < relation);
            // Reset, then one single-flit packet on p0.
            let mut left = None;
            for cycle in 0..8 {
                r.rst.next = cycle == 0;
                let send = cycle == 2;
                r.in_valid[0].next = send;
                r.in_head[0].next = send;
                r.in_tail[0].next = send;
                r.in_data[0].next = head_address(&s, &net, node, dest, || false).into();
                r.clock.next = Clock::from(false);
                simulate(&mut r, 1000);
                for o in 0..r.ports() {
                    if r.out_valid[o].val() {
                        left = Some((o, r.out_vc[o].val().index()));
                    }
                    r.out_credit[o].next = r.out_valid[o].val();
                }
                r.clock.next = Clock::from(true);
                simulate(&mut r, 1000);
            }
            let left = left.expect("the packet leaves");
            assert!(
                allowed.contains(&left),
                "at {} toward {}: left by {left:?}, the meta table keeps {allowed:?}",
                net.node_name(node),
                net.node_name(dest)
            );
        }
    }
    assert!(narrowed > 0, "the meta table should narrow somewhere");
}

/// Reprogramming the meta table: dimension order at (1,1) of a 4x4 mesh,
/// clusters = columns (x), so entry 4 + x serves every node of column x
/// (docs/interface.md); rewriting column 3's entry to +y sends (3,1) up
/// too (a full table has an entry per node), leaves column 2 on +x, and a
/// reset restores +x.
#[test]
fn reprogramming_a_meta_table_entry_changes_a_whole_cluster() {
    let s = meta_table(spec(Algorithm::DimensionOrder, 4, 1));
    assert_eq!(
        routes_after_programming(&s, 4 + 3, [(3, 1), (2, 1), (3, 3)]),
        [3, 1, 1]
    );
}

/// Reprogramming: entry (+,+) of a dimension-order router at (1,1) of a
/// 4x4 mesh rewritten to +y through `cfg_*`; a packet to (3,3) then leaves
/// on +y, one to (3,1) still on +x, and after a reset (3,3) is +x again.
/// The model here: entry = s_x + 3 s_y (docs/interface.md), the port the
/// programmed mask names.
#[test]
fn reprogramming_an_entry_changes_the_route() {
    let entry = |dx: i32, dy: i32| {
        let sign = |x: i32| match x.signum() {
            0 => 0u64,
            1 => 1,
            _ => 2,
        };
        sign(dx) + 3 * sign(dy)
    };
    let s = economical(spec(Algorithm::DimensionOrder, 4, 1));
    assert_eq!(reprogrammed_routes(&s, entry(2, 2)), [3, 1, 1]);
}

/// The full table: the same router, entry 15 = destination (3,3) (the
/// model: entry = x + 4 y, docs/interface.md) rewritten to +y; (3,1)'s
/// entry is untouched. Rewriting (3,3)'s entry does not move a packet to
/// (3,2), which the economical table would (same sign vector).
#[test]
fn reprogramming_a_full_table_entry_changes_the_route() {
    let s = full_table(spec(Algorithm::DimensionOrder, 4, 1));
    assert_eq!(reprogrammed_routes(&s, 3 + 4 * 3), [3, 1, 1]);
    let s = full_table(spec(Algorithm::DimensionOrder, 4, 1));
    assert_eq!(
        routes_after_programming(&s, 3 + 4 * 3, [(3, 2), (3, 3), (3, 3)]),
        [1, 3, 1]
    );
}

/// Output ports taken at node (1,1) of a 4x4 mesh by packets to (3,3),
/// (3,1) and, after a reset, (3,3) again, once entry `entry` has been
/// programmed to +y (port 3) with VC class 0.
pub(crate) fn reprogrammed_routes(s: &RouterSpec, entry: u64) -> Vec<usize> {
    routes_after_programming(s, entry, [(3, 3), (3, 1), (3, 3)])
}

pub(crate) fn routes_after_programming(
    s: &RouterSpec,
    entry: u64,
    to: [(u64, u64); 3],
) -> Vec<usize> {
    let mut r = Router::<16>::new(s).unwrap();
    crate::blocks::prepare(&mut r);
    let net = Network::new(s.topology, s.dims, s.radix).unwrap();
    let at = net.node_at(&[1, 1]);
    r.node_id.next = node_id_of(s, &net, at).into();
    // Cycle plan: (cycle, action).
    enum Act {
        Reset,
        Program(u64, u32),
        Send(u64),
    }
    // Absolute addressing (the tables require it).
    let dest = |(x, y): (u64, u64)| {
        head_address(s, &net, at, net.node_at(&[x as u32, y as u32]), || false)
    };
    let plan = [
        (0, Act::Reset),
        (2, Act::Program(entry, 1 << 3)),
        (4, Act::Send(dest(to[0]))),
        (12, Act::Send(dest(to[1]))),
        (20, Act::Reset),
        (24, Act::Send(dest(to[2]))),
    ];
    let mut left: Vec<(usize, usize)> = Vec::new();
    for cycle in 0..34usize {
        r.rst.next = false;
        r.cfg_we.next = false;
        r.in_valid[0].next = false;
        r.in_head[0].next = false;
        r.in_tail[0].next = false;
        for (at, act) in &plan {
            if *at != cycle {
                continue;
            }
            match act {
                Act::Reset => r.rst.next = true,
                Act::Program(e, mask) => {
                    r.cfg_we.next = true;
                    r.cfg_addr.next = (*e).into();
                    for o in 0..5 {
                        r.cfg_mask[o].next = (mask >> o) & 1 == 1;
                    }
                    r.cfg_class.next = 0u64.into();
                }
                Act::Send(d) => {
                    r.in_valid[0].next = true;
                    r.in_head[0].next = true;
                    r.in_tail[0].next = true;
                    r.in_data[0].next = (*d).into();
                }
            }
        }
        r.clock.next = Clock::from(false);
        simulate(&mut r, 1000);
        for o in 0..5 {
            if r.out_valid[o].val() {
                left.push((cycle, o));
            }
        }
        for k in 0..5 {
            r.out_credit[k].next = r.out_valid[k].val();
        }
        r.clock.next = Clock::from(true);
        simulate(&mut r, 1000);
    }
    left.iter().map(|x| x.1).collect()
}
