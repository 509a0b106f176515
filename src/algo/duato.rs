//! Duato's fully adaptive minimal routing with a dimension-order escape
//! sub-network (survey §4.2 and §6.1; the algorithm of the LAPSES
//! experiments, LAPSES §2.3).
//!
//! Following Duato's methodology (survey §6.1, steps 1-3): R_1 is
//! dimension-order routing ([`super::dimension_order`]), connected and
//! deadlock-free, on the escape virtual channels: one class on meshes and
//! hypercubes, the two dateline classes on tori. Every other virtual channel
//! is adaptive: a message may take it on any minimal hop, in every dimension
//! with a non-zero offset (both ways for a torus offset of exactly k/2). The
//! relation is deadlock-free when R_1 is connected and its extended channel
//! dependency graph is acyclic (survey §4.2, Theorem 2), which the checker
//! tests. Virtual lanes beyond the minimum are adaptive channels, as in the
//! survey's a_{i,1} ... a_{i,k-1}, b_i split. The survey's hypercube example
//! takes the escape dimensions in decreasing order; we use the same
//! lowest-dimension-first order as [`super::dimension_order`] everywhere
//! (either order is connected and deadlock-free; survey §5).

use super::routing::{
    dateline_classes, unified_organization, ChienModel, ClassLayout, RoutingAlgorithm,
};
use super::{dimension_order, Dir, Hop, Knobs, NodeId, Port, Relation};
use crate::spec::{Adaptivity, Organization, RouterDatapath, Topology};

/// Duato's fully adaptive routing, as one object ([`RoutingAlgorithm`]).
#[derive(Debug, Clone, Copy)]
pub struct Duato;

impl RoutingAlgorithm for Duato {
    fn title(&self) -> &'static str {
        "Duato's fully adaptive routing"
    }

    fn adaptivity(&self) -> Adaptivity {
        Adaptivity::FullyAdaptive
    }

    /// Every topology: the escape sub-network is dimension order.
    fn supports(&self, topology: Topology, _: u32) -> Result<(), String> {
        if topology == Topology::UniTorus {
            return Err(super::routing::one_way_refusal("Duato's routing"));
        }
        Ok(())
    }

    /// [`escape_layout`]: one adaptive class plus the escape sub-network's
    /// classes, 2 VCs on meshes and hypercubes (LAPSES §2.3) and 3 on a
    /// torus (dateline escape; Quaglia et al. §3: "at least three virtual
    /// channels" on a 2-D torus). `routergen check` proves these and finds
    /// a cycle with one fewer (except on a single ring of odd radix, where
    /// the adaptive hop is the escape hop).
    fn classes(&self, topology: Topology, dims: usize, knobs: Knobs) -> ClassLayout {
        escape_layout(topology, dims, knobs)
    }

    fn vc_reason(&self, _: Topology, _: u32) -> String {
        "It needs an adaptive channel plus the escape sub-network's channels (survey \
         §6.1; LAPSES §2.3)."
            .into()
    }

    /// Built as *-channels is: Figure 8, a crossbar port per channel class
    /// (escape and adaptive) on every link.
    fn organization(&self, topology: Topology, dims: u32) -> Organization {
        unified_organization(topology, dims, 2)
    }

    fn organization_reason(&self) -> &'static str {
        "a port per channel class on every link plus the local port, Chien §5.4 Figure 8"
    }

    fn has_escape(&self) -> bool {
        true
    }

    fn datapaths(&self) -> &'static [RouterDatapath] {
        &[RouterDatapath::Unified, RouterDatapath::VcPorts]
    }

    fn chien(&self) -> ChienModel {
        ChienModel::CostedAs {
            like: "*-channels",
            section: 4,
        }
    }

    fn route(&self, rel: &Relation, node: NodeId, dest: NodeId, out: &mut Vec<Hop>) {
        let net = &rel.net;
        let adaptive = if rel.knobs.escape {
            if let Some((port, class)) = dimension_order::next(rel, node, dest) {
                rel.push_class(out, port, class, true);
            }
            rel.dateline_classes()
        } else {
            0
        };
        for d in 0..net.n() {
            let (plus, minus, _) = net.minimal_dirs(node, dest, d);
            if plus {
                rel.push_class(out, Port::link(d, Dir::Plus), adaptive, false);
            }
            if minus {
                rel.push_class(out, Port::link(d, Dir::Minus), adaptive, false);
            }
        }
    }
}

/// The classes of an escape-channel relation (Duato, *-channels): the
/// escape classes first (the dateline pair on a torus, else one), then the
/// adaptive class, which also takes the virtual lanes; without the escape
/// rule ([`Knobs::escape`]) one adaptive class.
pub fn escape_layout(topology: Topology, dims: usize, knobs: Knobs) -> ClassLayout {
    if knobs.escape {
        let ring = dateline_classes(topology, knobs);
        ClassLayout {
            per_dim: vec![ring + 1; dims],
            lanes_to: Some(ring),
        }
    } else {
        ClassLayout {
            per_dim: vec![1; dims],
            lanes_to: Some(0),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::{Dir, Input, Network};
    use super::*;
    use crate::spec::{Algorithm, Topology};

    #[test]
    fn escape_is_dimension_order_and_adaptive_covers_every_useful_direction() {
        let net = Network::new(Topology::Mesh, 2, 4).unwrap();
        let rel = Relation::new(Algorithm::Duato, net, 2).unwrap();
        let hops = rel.hops(net.node_at(&[0, 3]), Input::INJECTED, net.node_at(&[2, 1]));
        let esc: Vec<(Port, u8)> = hops
            .iter()
            .filter(|h| h.escape)
            .map(|h| (h.port, h.vc))
            .collect();
        let adp: Vec<(Port, u8)> = hops
            .iter()
            .filter(|h| !h.escape)
            .map(|h| (h.port, h.vc))
            .collect();
        assert_eq!(esc, vec![(Port::link(0, Dir::Plus), 0)]);
        assert_eq!(
            adp,
            vec![
                (Port::link(0, Dir::Plus), 1),
                (Port::link(1, Dir::Minus), 1)
            ]
        );
    }

    #[test]
    fn torus_tie_is_adaptive_both_ways_and_escape_one_way() {
        let net = Network::new(Topology::Torus, 1, 4).unwrap();
        let rel = Relation::new(Algorithm::Duato, net, 3).unwrap();
        let hops = rel.hops(0, Input::INJECTED, 2);
        assert_eq!(hops.iter().filter(|h| h.escape).count(), 1);
        assert_eq!(hops.iter().filter(|h| !h.escape).count(), 2);
    }

    #[test]
    fn without_escape_every_vc_is_adaptive() {
        let net = Network::new(Topology::Mesh, 2, 3).unwrap();
        let knobs = super::super::Knobs {
            escape: false,
            ..Default::default()
        };
        let rel = Relation::with_knobs(Algorithm::Duato, net, 2, knobs).unwrap();
        let hops = rel.hops(0, Input::INJECTED, 8);
        assert_eq!(hops.len(), 4);
        assert!(hops.iter().all(|h| !h.escape));
    }
}
