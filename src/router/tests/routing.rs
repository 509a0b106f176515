//! The scoreboard on every algorithm and topology: dimension order, the
//! turn models, planar-adaptive, Duato, *-channels on meshes, tori and
//! hypercubes; on/off flow control; look-ahead.

use super::*;

#[test]
fn scoreboard_dor_v1_middle_node() {
    let s = spec(Algorithm::DimensionOrder, 4, 1);
    let cycles = run(&s, node_at(&s, &[1, 2]), 60, 11);
    eprintln!("dor v1: {cycles} cycles");
}

#[test]
fn scoreboard_dor_v2_middle_and_corner() {
    let s = spec(Algorithm::DimensionOrder, 5, 2);
    for (node, seed) in [(node_at(&s, &[2, 2]), 12), (0, 13)] {
        let cycles = run(&s, node, 20, seed);
        eprintln!("dor v2 at {node}: {cycles} cycles");
    }
}

#[test]
fn scoreboard_turn_models_v1() {
    for (a, seed) in [
        (Algorithm::NegativeFirst, 21),
        (Algorithm::WestFirst, 22),
        (Algorithm::NorthLast, 23),
    ] {
        let s = spec_with(a, 4, 1, PathSelection::MaxCredit);
        let cycles = run(&s, node_at(&s, &[1, 2]), 40, seed);
        eprintln!("{a} v1: {cycles} cycles");
    }
}

#[test]
fn scoreboard_planar_and_duato_v2_every_path_selection() {
    for (a, sel, seed) in [
        (Algorithm::PlanarAdaptive, PathSelection::Lru, 31),
        (Algorithm::Duato, PathSelection::MaxCredit, 32),
        (Algorithm::Duato, PathSelection::MinMux, 33),
        (Algorithm::WestFirst, PathSelection::Lfu, 34),
        (Algorithm::PlanarAdaptive, PathSelection::StaticXy, 35),
    ] {
        let s = spec_with(a, 4, 2, sel);
        let cycles = run(&s, node_at(&s, &[2, 1]), 25, seed);
        eprintln!("{a} v2 {sel}: {cycles} cycles");
    }
}

#[test]
fn scoreboard_absolute_addressing_and_wide_flits() {
    for (s, coords, seed) in [
        (absolute(spec(Algorithm::DimensionOrder, 4, 1)), [1, 2], 51),
        (absolute(spec(Algorithm::Duato, 5, 3)), [2, 3], 52),
        (absolute(spec(Algorithm::WestFirst, 4, 1)), [0, 0], 53),
        (
            RouterSpec {
                flit_width: 32,
                ..spec(Algorithm::DimensionOrder, 4, 2)
            },
            [1, 2],
            61,
        ),
        (
            RouterSpec {
                flit_width: 64,
                ..spec(Algorithm::NegativeFirst, 4, 2)
            },
            [1, 2],
            62,
        ),
    ] {
        let cycles = run(&s, node_at(&s, &coords), 20, seed);
        eprintln!("{}: {cycles} cycles", s.name());
    }
}

/// Tori: next to the wraparound links (coordinates 0 and k - 1, where the
/// dateline classes change) and inside, even k (ties) and odd k, relative
/// (the node id decides the dateline) and absolute addressing.
#[test]
fn scoreboard_tori_at_the_wraparound_and_inside() {
    let dor4 = spec_on(Algorithm::DimensionOrder, Topology::Torus, 2, 4, 2);
    let dor5 = spec_on(Algorithm::DimensionOrder, Topology::Torus, 2, 5, 3);
    for (s, coords, seed) in [
        (dor4.clone(), [0, 0], 71),
        (dor4.clone(), [3, 1], 72),
        (absolute(dor4), [2, 3], 73),
        (dor5.clone(), [4, 0], 74),
        (absolute(dor5), [1, 4], 75),
    ] {
        let cycles = run(&s, node_at(&s, &coords), 12, seed);
        eprintln!("{} at {coords:?}: {cycles} cycles", s.name());
    }
}

/// Unidirectional tori: flits arrive from the - neighbour only; next to
/// the wraparound link and inside, relative (the node id decides the
/// dateline) and absolute addressing, an economical table.
#[test]
fn scoreboard_unidirectional_tori() {
    let dor4 = spec_on(Algorithm::DimensionOrder, Topology::UniTorus, 2, 4, 2);
    let dor5 = spec_on(Algorithm::DimensionOrder, Topology::UniTorus, 3, 5, 3);
    for (s, coords, seed) in [
        (dor4.clone(), vec![0, 3], 81),
        (absolute(dor4.clone()), vec![2, 1], 82),
        (economical(dor4), vec![3, 0], 83),
        (dor5, vec![4, 0, 2], 84),
    ] {
        let cycles = run(&s, node_at(&s, &coords), 12, seed);
        eprintln!("{} at {coords:?}: {cycles} cycles", s.name());
    }
}

#[test]
fn scoreboard_adaptive_tori() {
    for (s, coords, seed) in [
        (
            spec_on(Algorithm::Duato, Topology::Torus, 2, 4, 3),
            [3, 0],
            81,
        ),
        (
            absolute(spec_on(Algorithm::StarChannels, Topology::Torus, 2, 4, 3)),
            [0, 3],
            82,
        ),
        (
            spec_on(Algorithm::StarChannels, Topology::Torus, 2, 5, 4),
            [2, 2],
            83,
        ),
    ] {
        let cycles = run(&s, node_at(&s, &coords), 8, seed);
        eprintln!("{} at {coords:?}: {cycles} cycles", s.name());
    }
}

#[test]
fn scoreboard_planar_torus_and_3d_torus() {
    for (s, coords, seed) in [
        (
            spec_on(Algorithm::PlanarAdaptive, Topology::Torus, 2, 4, 8),
            vec![3, 3],
            91,
        ),
        (
            spec_on(Algorithm::DimensionOrder, Topology::Torus, 3, 3, 2),
            vec![0, 2, 1],
            92,
        ),
    ] {
        let cycles = run(&s, node_at(&s, &coords), 3, seed);
        eprintln!("{} at {coords:?}: {cycles} cycles", s.name());
    }
}

#[test]
fn scoreboard_hypercubes() {
    for (s, node, seed) in [
        (
            spec_on(Algorithm::DimensionOrder, Topology::Hypercube, 3, 2, 1),
            0b010,
            101,
        ),
        (
            spec_on(Algorithm::NegativeFirst, Topology::Hypercube, 3, 2, 1),
            0b110,
            102,
        ),
        (
            absolute(spec_on(Algorithm::Duato, Topology::Hypercube, 3, 2, 2)),
            0b101,
            103,
        ),
        (
            spec_on(Algorithm::Duato, Topology::Hypercube, 4, 2, 3),
            0b1001,
            104,
        ),
    ] {
        let cycles = run(&s, node, 12, seed);
        eprintln!("{} at {node:#b}: {cycles} cycles", s.name());
    }
}

#[test]
fn scoreboard_3d_and_4d_meshes() {
    for (s, coords, seed) in [
        (
            spec_on(Algorithm::PlanarAdaptive, Topology::Mesh, 3, 4, 3),
            vec![1, 2, 0],
            111,
        ),
        (
            absolute(spec_on(Algorithm::NegativeFirst, Topology::Mesh, 4, 3, 1)),
            vec![1, 0, 2, 1],
            112,
        ),
    ] {
        let cycles = run(&s, node_at(&s, &coords), 6, seed);
        eprintln!("{} at {coords:?}: {cycles} cycles", s.name());
    }
}

/// On/off flow control with random back-pressure both ways (see
/// [`scoreboard`]): the smallest depth, 2, and deeper buffers; a mesh, an
/// adaptive router choosing by MAX-CREDIT (the levels), a torus at its
/// wraparound, a hypercube.
#[test]
fn scoreboard_on_off_flow_control() {
    for (s, at, seed) in [
        (
            on_off(spec(Algorithm::DimensionOrder, 4, 1), 2),
            vec![1, 2],
            201,
        ),
        (
            on_off(
                spec_with(Algorithm::WestFirst, 4, 2, PathSelection::MaxCredit),
                3,
            ),
            vec![2, 1],
            202,
        ),
        (
            on_off(
                spec_on(Algorithm::DimensionOrder, Topology::Torus, 2, 4, 2),
                4,
            ),
            vec![0, 3],
            203,
        ),
        (
            on_off(
                spec_on(Algorithm::NegativeFirst, Topology::Hypercube, 3, 2, 1),
                2,
            ),
            vec![1, 1, 0],
            204,
        ),
    ] {
        let cycles = run(&s, node_at(&s, &at), 15, seed);
        eprintln!("{} D={} on-off: {cycles} cycles", s.name(), s.buffer_depth);
    }
}

/// Look-ahead (LAPSES §3.2): head flits on the links carry the ports the
/// relation permits here, the local port's field is random (the router
/// ignores it), and every head must leave with the ports the relation
/// permits at the next router ([`scoreboard`]); meshes with deterministic,
/// turn-model and adaptive relations (the field's VCs: Duato's escape
/// channel, planar-adaptive's planes), absolute addressing, hypercubes,
/// on/off flow control.
#[test]
fn scoreboard_lookahead() {
    for (s, at, seed) in [
        (
            lookahead(spec(Algorithm::DimensionOrder, 4, 1), 16),
            vec![1, 2],
            301,
        ),
        (
            lookahead(
                spec_with(Algorithm::Duato, 4, 2, PathSelection::MaxCredit),
                32,
            ),
            vec![2, 1],
            302,
        ),
        (
            lookahead(absolute(spec(Algorithm::WestFirst, 4, 1)), 16),
            vec![0, 3],
            303,
        ),
        (
            lookahead(
                spec_on(Algorithm::PlanarAdaptive, Topology::Mesh, 3, 3, 3),
                32,
            ),
            vec![1, 0, 2],
            304,
        ),
        (
            lookahead(
                spec_on(Algorithm::NegativeFirst, Topology::Hypercube, 3, 2, 1),
                16,
            ),
            vec![1, 1, 0],
            305,
        ),
        (
            on_off(
                lookahead(
                    spec_with(Algorithm::WestFirst, 4, 2, PathSelection::Lru),
                    32,
                ),
                3,
            ),
            vec![1, 1],
            306,
        ),
        // Tori: the field's second half carries the dateline class.
        (
            lookahead(
                spec_on(Algorithm::DimensionOrder, Topology::Torus, 2, 4, 2),
                32,
            ),
            vec![3, 0],
            307,
        ),
        (
            lookahead(spec_on(Algorithm::Duato, Topology::Torus, 3, 4, 3), 32),
            vec![1, 2, 3],
            308,
        ),
        (
            lookahead(
                spec_on(Algorithm::StarChannels, Topology::Torus, 2, 5, 3),
                32,
            ),
            vec![4, 2],
            309,
        ),
        // 9 ports on a 4-D torus: an 18-bit field (in 32-bit flits, which
        // leave the packet id no room in the head: it rides in flit 1).
        (
            lookahead(
                spec_on(Algorithm::DimensionOrder, Topology::Torus, 4, 3, 2),
                32,
            ),
            vec![2, 0, 1, 2],
            310,
        ),
    ] {
        let cycles = run(&s, node_at(&s, &at), 6, seed);
        eprintln!("{} look-ahead at {at:?}: {cycles} cycles", s.name());
    }
}

/// One cycle per router (`pipeline = 1`): heads routed from their
/// look-ahead field in the cycle they arrive, under the checks of
/// [`scoreboard`]; a mesh under dimension order and Duato, on/off flow
/// control, block-RAM buffers, a hypercube and a torus (dateline bits).
#[test]
fn scoreboard_pipeline_1() {
    let p1 = |s: RouterSpec| RouterSpec { pipeline: 1, ..s };
    for (s, at, seed) in [
        (
            p1(lookahead(spec(Algorithm::DimensionOrder, 4, 1), 16)),
            vec![1, 2],
            401,
        ),
        (
            p1(lookahead(
                spec_with(Algorithm::Duato, 4, 2, PathSelection::MaxCredit),
                32,
            )),
            vec![2, 1],
            402,
        ),
        (
            p1(on_off(
                lookahead(
                    spec_with(Algorithm::WestFirst, 4, 2, PathSelection::Lru),
                    32,
                ),
                3,
            )),
            vec![1, 1],
            403,
        ),
        (
            RouterSpec {
                buffers: crate::spec::BufferStorage::Bram,
                ..p1(lookahead(spec(Algorithm::NegativeFirst, 4, 2), 32))
            },
            vec![1, 2],
            404,
        ),
        (
            p1(lookahead(
                spec_on(Algorithm::NegativeFirst, Topology::Hypercube, 3, 2, 1),
                16,
            )),
            vec![1, 1, 0],
            405,
        ),
        (
            p1(lookahead(
                spec_on(Algorithm::DimensionOrder, Topology::Torus, 2, 4, 2),
                32,
            )),
            vec![3, 0],
            406,
        ),
    ] {
        let cycles = run(&s, node_at(&s, &at), 6, seed);
        eprintln!("{} at {at:?}: {cycles} cycles", s.name());
    }
}
