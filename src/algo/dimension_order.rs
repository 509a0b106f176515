//! Dimension-order routing: XY on meshes, e-cube on hypercubes, and minimal
//! dimension order with dateline virtual channels on tori.
//!
//! - survey §5: route in the lowest dimension with a non-zero offset until
//!   it is zero, then the next ("rightmost 1 of the XOR" on a hypercube,
//!   e.g. 0010 -> 0011 -> 0001 -> 0101 -> 1101 in a 4-cube);
//! - survey §5: on a k-ary n-cube each ring can deadlock on its own; minimal
//!   dimension order is made deadlock-free with virtual channels (Dally and
//!   Seitz), here two dateline classes per ring (survey §8, Cray T3D): class 0
//!   while the wraparound link is still ahead, class 1 once it is not
//!   ([`super::Network::dateline_class`]). A message stays in one class within a
//!   dimension until it crosses the wraparound link.
//!
//! Reading: the Cray T3D (survey §8) instead picks one VC per ring at the
//! source so that a packet never crosses its VC's dateline and "no traffic
//! ever switches between virtual channels"; that choice depends on the
//! source, not only on (node, destination). We take the Dally and Seitz form
//! above, which switches class once, at the wraparound link, so the relation
//! stays a function of (node, destination) and the 3^n and full tables can
//! be compiled from it.
//!
//! On a torus with even radix a destination k/2 away takes the plus
//! direction, so the relation stays deterministic. On a unidirectional
//! torus (Dally's k-ary n-cube, IEEE TC 1990 §II-A) every hop is toward +,
//! with the same two dateline classes.

use super::routing::{dateline_classes, ChienModel, ClassLayout, RoutingAlgorithm};
use super::{Hop, Knobs, NodeId, Port, Relation};
use crate::spec::{Adaptivity, Datapath, Organization, RouterDatapath, Topology};

/// Dimension-order routing, as one object ([`RoutingAlgorithm`]).
#[derive(Debug, Clone, Copy)]
pub struct DimensionOrder;

impl RoutingAlgorithm for DimensionOrder {
    fn title(&self) -> &'static str {
        "dimension-order routing"
    }

    fn adaptivity(&self) -> Adaptivity {
        Adaptivity::Deterministic
    }

    /// Every topology and dimension (survey §5).
    fn supports(&self, _: Topology, _: u32) -> Result<(), String> {
        Ok(())
    }

    /// One class per dimension; on a torus the two dateline classes
    /// (survey §5 and §8, Cray T3D), hence 2 VCs there. `routergen check`
    /// finds the ring cycle with 1 VC for k >= 4; on 3-rings minimal paths
    /// take one hop per ring, so 1 would do.
    fn classes(&self, topology: Topology, dims: usize, knobs: Knobs) -> ClassLayout {
        ClassLayout::uniform(dims, dateline_classes(topology, knobs))
    }

    fn vc_reason(&self, topology: Topology, _: u32) -> String {
        if topology.wraps() {
            "Each ring of a torus is a cycle of channels; two VCs with a dateline break it \
             (survey §5 and §8, Cray T3D)."
                .into()
        } else {
            String::new()
        }
    }

    /// Figure 5: per dimension, inputs D+, D- and from a higher dimension;
    /// outputs D+, D- and to a lower dimension.
    fn organization(&self, topology: Topology, dims: u32) -> Organization {
        let ports = topology.links_per_dim() + 1;
        Organization {
            datapath: Datapath::DimensionSlices,
            crossbars: dims,
            ports,
            freedom: ports,
            classes_per_link: 1,
        }
    }

    fn organization_reason(&self) -> &'static str {
        "one per dimension, Chien §5.1 Figure 5"
    }

    fn datapaths(&self) -> &'static [RouterDatapath] {
        &[RouterDatapath::Unified, RouterDatapath::Sliced]
    }

    fn chien(&self) -> ChienModel {
        ChienModel::Studied {
            figure_row: "Dimension order",
            topology: Topology::Mesh,
            vcs: 1,
        }
    }

    fn route(&self, rel: &Relation, node: NodeId, dest: NodeId, out: &mut Vec<Hop>) {
        if let Some((port, class)) = next(rel, node, dest) {
            rel.push_class(out, port, class, false);
        }
    }
}

/// The single dimension-order hop (port and class) from `node` to `dest`,
/// or `None` at the destination. Shared with the escape sub-functions of
/// *-channels and Duato.
pub fn next(rel: &Relation, node: NodeId, dest: NodeId) -> Option<(Port, usize)> {
    let net = &rel.net;
    let dim = net.lowest_differing_dim(node, dest)?;
    let dir = net.dor_dir(node, dest, dim)?;
    let class = if rel.dateline_classes() == 2 {
        net.dateline_class(node, dest, dim, dir)
    } else {
        0
    };
    Some((Port::link(dim, dir), class))
}

#[cfg(test)]
mod tests {
    use super::super::{Dir, Input, Network};
    use super::*;
    use crate::spec::{Algorithm, Topology};

    fn walk(rel: &Relation, src: NodeId, dest: NodeId) -> Vec<NodeId> {
        let mut path = vec![src];
        let mut node = src;
        while node != dest {
            let hops = rel.hops(node, Input::INJECTED, dest);
            assert_eq!(hops.len(), 1, "deterministic with one VC");
            node = rel.net.neighbour(node, hops[0].port).unwrap();
            path.push(node);
            assert!(path.len() < 64);
        }
        path
    }

    // survey §5: "a message originating from source node 0010 in a 4-cube to
    // destination node 1101 traverses 0010 -> 0011 -> 0001 -> 0101 -> 1101".
    #[test]
    fn ecube_follows_the_survey_example() {
        let net = Network::new(Topology::Hypercube, 4, 2).unwrap();
        let rel = Relation::new(Algorithm::DimensionOrder, net, 1).unwrap();
        assert_eq!(
            walk(&rel, 0b0010, 0b1101),
            vec![0b0010, 0b0011, 0b0001, 0b0101, 0b1101]
        );
    }

    // survey §5, Figure 8: XY routing completes X before Y.
    #[test]
    fn xy_routes_x_first() {
        let net = Network::new(Topology::Mesh, 2, 4).unwrap();
        let rel = Relation::new(Algorithm::DimensionOrder, net, 1).unwrap();
        let path = walk(&rel, net.node_at(&[3, 0]), net.node_at(&[1, 2]));
        let coords: Vec<Vec<u32>> = path.iter().map(|&p| net.coords(p)).collect();
        assert_eq!(
            coords,
            vec![vec![3, 0], vec![2, 0], vec![1, 0], vec![1, 1], vec![1, 2]]
        );
    }

    // survey §8 (T3D datelines): the wraparound hop is taken before the
    // message switches class; after it, class 1 until the dimension is done.
    #[test]
    fn torus_classes_switch_at_the_dateline() {
        let net = Network::new(Topology::Torus, 1, 6).unwrap();
        let rel = Relation::new(Algorithm::DimensionOrder, net, 2).unwrap();
        // 4 -> 5 -> 0 -> 1: wraps; 4->5 and 5->0 class 0, 0->1 class 1.
        let vc = |node, dest| rel.hops(node, Input::INJECTED, dest)[0].vc;
        assert_eq!(
            rel.hops(4, Input::INJECTED, 1)[0].port,
            Port::link(0, Dir::Plus)
        );
        assert_eq!((vc(4, 1), vc(5, 1), vc(0, 1)), (0, 0, 1));
        // 1 -> 0 -> 5: minus direction, wraps at 0.
        assert_eq!((vc(1, 5), vc(0, 5)), (0, 0));
        // no wrap: class 1 throughout.
        assert_eq!((vc(1, 3), vc(2, 3)), (1, 1));
    }

    // Dally's k-ary n-cube (IEEE TC 1990 §II-A) with Dally and Seitz's two
    // classes (survey §5): every hop toward +, (b - a) mod k of them per
    // dimension; the class switches after the wraparound link; one VC
    // closes each ring into a cycle of channels, two do not.
    #[test]
    fn unidirectional_torus_goes_plus_and_needs_the_dateline() {
        use super::super::check::{check, Verdict};
        let net = Network::new(Topology::UniTorus, 2, 5).unwrap();
        let rel = Relation::new(Algorithm::DimensionOrder, net, 2).unwrap();
        // (4,0) -> (1,3): 4 -> 0 -> 1 in x, then 0 -> 1 -> 2 -> 3 in y.
        let path = walk(&rel, net.node_at(&[4, 0]), net.node_at(&[1, 3]));
        assert_eq!(path.len(), 1 + 2 + 3);
        let vc = |node, dest| rel.hops(node, Input::INJECTED, dest)[0].vc;
        let dest = net.node_at(&[1, 0]);
        assert_eq!(
            (
                vc(net.node_at(&[4, 0]), dest),
                vc(net.node_at(&[0, 0]), dest)
            ),
            (0, 1)
        );
        for node in 0..net.nodes() {
            for dest in (0..net.nodes()).filter(|&d| d != node) {
                for h in rel.hops(node, Input::INJECTED, dest) {
                    assert!(matches!(h.port, Port::Link { dir: Dir::Plus, .. }));
                }
            }
        }
        assert_eq!(check(&rel, false).verdict, Verdict::Proved);
        let one = Relation::new(Algorithm::DimensionOrder, net, 1).unwrap();
        assert_eq!(check(&one, false).verdict, Verdict::DeadlockPossible);
    }

    #[test]
    fn extra_vcs_are_lanes_of_the_same_path() {
        let net = Network::new(Topology::Mesh, 2, 3).unwrap();
        let rel = Relation::new(Algorithm::DimensionOrder, net, 3).unwrap();
        let hops = rel.hops(0, Input::INJECTED, 8);
        assert_eq!(hops.len(), 3);
        assert!(hops.iter().all(|h| h.port == Port::link(0, Dir::Plus)));
    }
}
