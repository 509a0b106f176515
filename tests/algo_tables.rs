//! Routing-table contents compiled from the relations (LAPSES §5).

use routergen::algo::tables::{
    economical, full, meta, meta_split, meta_split_among, meta_with, signs_of, sizes, MetaSplit,
};
use routergen::algo::{Dir, Network, Port, Relation};
use routergen::spec::{Algorithm, Topology};

fn ports(hops: &[routergen::algo::Hop]) -> Vec<Port> {
    let mut p: Vec<Port> = hops.iter().map(|h| h.port).collect();
    p.sort();
    p.dedup();
    p
}

const E: Port = Port::Link {
    dim: 0,
    dir: Dir::Plus,
};
const W: Port = Port::Link {
    dim: 0,
    dir: Dir::Minus,
};
const N: Port = Port::Link {
    dim: 1,
    dir: Dir::Plus,
};
const S: Port = Port::Link {
    dim: 1,
    dir: Dir::Minus,
};

// LAPSES Figure 7: north-last on the 3x3 mesh, router (1,1). The figure's
// table is not in the paper's text; the expected entries below are worked
// out by hand from Figure 7(c) (north-last forbids turning out of north,
// survey §6.2) and §5.2.1's indexing by (sign dx, sign dy): toward a
// destination with dy > 0 and dx != 0 only the x port, since going north
// first would need a forbidden turn; dy < 0 leaves both ports.
#[test]
fn economical_table_reproduces_lapses_figure_7d() {
    let net = Network::new(Topology::Mesh, 2, 3).unwrap();
    let rel = Relation::new(Algorithm::NorthLast, net, 1).unwrap();
    let table = economical(&rel, net.node_at(&[1, 1]));
    assert!(table.well_defined(), "{:?}", table.conflicts);
    assert_eq!(table.entries.len(), 9);
    let expected: [((i8, i8), Vec<Port>); 9] = [
        ((0, 0), vec![Port::Local]),
        ((1, 0), vec![E]),
        ((-1, 0), vec![W]),
        ((0, 1), vec![N]),
        ((0, -1), vec![S]),
        ((1, 1), vec![E]),
        ((-1, 1), vec![W]),
        ((1, -1), vec![E, S]),
        ((-1, -1), vec![W, S]),
    ];
    let mut seen = 0;
    for (i, entry) in table.entries.iter().enumerate() {
        let s = signs_of(i, 2);
        let (_, want) = expected
            .iter()
            .find(|((x, y), _)| *x == s[0] && *y == s[1])
            .expect("every sign vector has an expected entry");
        let mut want = want.clone();
        want.sort();
        assert_eq!(ports(entry.as_ref().unwrap()), want, "entry {s:?}");
        seen += 1;
    }
    assert_eq!(seen, 9);
}

// LAPSES §5.2: "for any arbitrary sized 2-D mesh network, only 9 table
// entries ... 27 for 3-D"; all the mesh algorithms are sign-vector functions.
#[test]
fn economical_tables_are_well_defined_on_meshes() {
    for (algorithm, n, k) in [
        (Algorithm::DimensionOrder, 2, 5),
        (Algorithm::DimensionOrder, 3, 3),
        (Algorithm::WestFirst, 2, 4),
        (Algorithm::NorthLast, 2, 5),
        (Algorithm::NegativeFirst, 3, 3),
        (Algorithm::PlanarAdaptive, 3, 3),
        (Algorithm::Duato, 2, 4),
        (Algorithm::Duato, 3, 3),
    ] {
        let net = Network::new(Topology::Mesh, n, k).unwrap();
        let rel = Relation::new(algorithm, net, algorithm.min_vcs(Topology::Mesh, n)).unwrap();
        for node in 0..net.nodes() {
            let t = economical(&rel, node);
            assert_eq!(t.entries.len(), 3usize.pow(n));
            assert!(t.well_defined(), "{algorithm} at {node}: {:?}", t.conflicts);
        }
    }
}

// LAPSES §5.2.1 covers meshes; on a torus the minimal direction depends on
// the size of the offset, so the basic 3^n table cannot hold the relation.
#[test]
fn economical_tables_are_not_well_defined_on_tori() {
    let net = Network::new(Topology::Torus, 2, 5).unwrap();
    let rel = Relation::new(Algorithm::DimensionOrder, net, 2).unwrap();
    let t = economical(&rel, 0);
    assert!(!t.well_defined());
    // From (0,0), (1,0) is reached going +x and (4,0) going -x: same signs.
    assert!(
        t.conflicts.iter().any(|c| c.contains("(+,0)")),
        "{:?}",
        t.conflicts
    );
}

// LAPSES Table 5: full table 2^N, 2-level meta table 2 * 2^(N/2),
// economical 9 (2-D) or 27 (3-D); a 16x16 mesh has N = 8.
#[test]
fn table_sizes_follow_lapses_table_5() {
    let net = Network::new(Topology::Mesh, 2, 16).unwrap();
    let rel = Relation::new(Algorithm::NorthLast, net, 1).unwrap();
    let m = meta(&rel, 0);
    assert_eq!(m.sub_cluster.len() + m.cluster.len(), 2 * 16);
    assert_eq!(full(&rel, 0).len(), 256);
    let small = Network::new(Topology::Mesh, 3, 3).unwrap();
    let s = sizes(&Relation::new(Algorithm::DimensionOrder, small, 1).unwrap());
    assert_eq!((s.economical, s.full), (27, 27));
}

// LAPSES §5.2.2, Figure 8(a): with each cluster a row, "no flexibility
// exists in routing to other clusters, because clusters are arranged in a
// single column": every cluster entry holds only the y port toward the row.
#[test]
fn row_clusters_leave_only_the_y_port_for_other_rows() {
    let net = Network::new(Topology::Mesh, 2, 4).unwrap();
    let rel = Relation::new(Algorithm::Duato, net, 2).unwrap();
    // Rows lose Duato's escape channel, so the checker refuses them and
    // the table routergen builds takes columns (Figure 8(a) turned) instead.
    let rows = MetaSplit::candidates(2).remove(0);
    assert_eq!(rows.cluster_dims(), 1..2);
    assert_eq!(meta_split(&rel).unwrap().cluster_dims(), 0..1);
    for node in 0..net.nodes() {
        let m = meta_with(&rel, &rows, node, &full(&rel, node));
        let row = net.coord(node, 1) as usize;
        for (c, entry) in m.cluster.iter().enumerate() {
            if c == row {
                continue;
            }
            let want = if c > row { N } else { S };
            assert_eq!(ports(entry), vec![want], "router {node}, cluster {c}");
        }
        // The shared entry is an adaptive y channel only: the escape
        // (dimension-order, x first) channel differs across the row.
        for (c, entry) in m.cluster.iter().enumerate() {
            if c != row {
                assert!(
                    entry.iter().all(|h| !h.escape),
                    "router {node}, cluster {c}"
                );
            }
        }
        assert_eq!(m.escape_lost, 12);
        // Within the row, the entries are the full relation's.
        let table = full(&rel, node);
        for (i, e) in m.sub_cluster.iter().enumerate() {
            assert_eq!(e, &table[row * 4 + i]);
        }
    }
}

// LAPSES §5.2.2, Figure 8(b): square clusters. The oracle is the paper's
// definition worked out by hand on a 4x4 mesh with 2x2 clusters: node
// (x, y) is in cluster (x div 2, y div 2) at sub-cluster (x mod 2, y mod
// 2); a minimal route to a cluster diagonal to the router's keeps both
// productive directions (every node of it lies in the same quadrant),
// one in line keeps only the direction along the line.
#[test]
fn square_clusters_keep_both_productive_outputs_toward_a_diagonal_cluster() {
    let net = Network::new(Topology::Mesh, 2, 4).unwrap();
    let rel = Relation::new(Algorithm::Duato, net, 2).unwrap();
    let squares = MetaSplit::squares(2, 2);
    let rows = MetaSplit::candidates(2).remove(0);
    let (mut diagonal, mut in_line) = (0, 0);
    for node in 0..net.nodes() {
        let (x, y) = (net.coord(node, 0), net.coord(node, 1));
        let m = meta_with(&rel, &squares, node, &full(&rel, node));
        let r = meta_with(&rel, &rows, node, &full(&rel, node));
        assert_eq!((m.sub_cluster.len(), m.cluster.len()), (4, 4));
        let table = full(&rel, node);
        for dest in (0..net.nodes()).filter(|&d| d != node) {
            let (dx, dy) = (net.coord(dest, 0), net.coord(dest, 1));
            let (cx, cy) = (dx / 2, dy / 2);
            assert_eq!(squares.cluster_of(&net, dest), (cx + 2 * cy) as usize);
            assert_eq!(squares.sub_of(&net, dest), (dx % 2 + 2 * (dy % 2)) as usize);
            let own = (cx, cy) == (x / 2, y / 2);
            let entry = if own {
                &m.sub_cluster[(dx % 2 + 2 * (dy % 2)) as usize]
            } else {
                &m.cluster[(cx + 2 * cy) as usize]
            };
            if own {
                assert_eq!(entry, &table[dest as usize], "{node} -> {dest}");
                continue;
            }
            // The productive direction toward the cluster along one axis.
            let toward = |c: u32, own: u32, plus: Port, minus: Port| match c.cmp(&own) {
                std::cmp::Ordering::Greater => Some(plus),
                std::cmp::Ordering::Less => Some(minus),
                std::cmp::Ordering::Equal => None,
            };
            let want: Vec<Port> = [toward(cx, x / 2, E, W), toward(cy, y / 2, N, S)]
                .into_iter()
                .flatten()
                .collect();
            assert_eq!(ports(entry), want, "router {node}, destination {dest}");
            if want.len() == 2 {
                diagonal += 1;
                // The row labelling keeps one output toward the same node.
                let rc = r.split.cluster_of(&net, dest);
                if rc != r.split.cluster_of(&net, node) {
                    assert_eq!(ports(&r.cluster[rc]).len(), 1, "{node} -> {dest}");
                }
            } else {
                in_line += 1;
            }
        }
    }
    assert!(diagonal > 0 && in_line > 0);
}

// Toward a cluster in line the entry keeps Duato's adaptive channel only
// (the escape, X first, differs across the cluster); with the kept hops as
// the escape there, the extended dependency graph has a cycle, so the
// checker refuses the square clusters for Duato on a mesh.
#[test]
fn square_clusters_lose_duatos_escape_and_the_checker_refuses_them() {
    for (k, b) in [(4, 2), (16, 4)] {
        let net = Network::new(Topology::Mesh, 2, k).unwrap();
        let rel = Relation::new(Algorithm::Duato, net, 2).unwrap();
        let squares = MetaSplit::squares(2, b);
        let m = meta_with(&rel, &squares, 0, &full(&rel, 0));
        // Cluster (0, 1) is in line with node (0, 0)'s cluster (0, 0).
        let north = &m.cluster[b as usize];
        assert_eq!(ports(north), vec![N]);
        assert!(north.iter().all(|h| !h.escape));
        let why = meta_split_among(&rel, &[squares]).unwrap_err();
        assert!(why.contains("keeps no escape channel"), "{why}");
        assert!(why.contains("has a cycle"), "{why}");
    }
}
