//! *-channels (Gravano et al., survey §6.1; Chien §5.4): fully adaptive
//! minimal routing on tori with a dimension-order "star" sub-network.
//!
//! Survey §6.1: "The star channels are used for dimension-order oblivious
//! routing. The nonstar channels are used when taking any of the turns that
//! are not allowed by the oblivious routing scheme." We read this literally:
//! the hop dimension order would take (lowest dimension with a non-zero
//! offset) is offered on the star channels only, in their dateline class
//! (survey §8); every other minimal hop (a higher useful dimension, or the
//! other way round a ring at an offset of exactly k/2) is offered on the
//! non-star channel of its direction. The star channels are the escape
//! sub-function of Duato's theory (Chien §5.4: "*-channels prevents deadlock
//! in the fashion described by Duato's theory"), which the checker proves.
//! This differs from [`super::duato`], whose adaptive channels may also be
//! taken in the dimension-order dimension.
//!
//! Channels per direction: two star (dateline) classes and one non-star,
//! so 3 VCs; the survey's "five virtual channels per bidirectional link"
//! is not reachable with the same V on every channel, and Chien §5.4 costs
//! the router with V = 2. Extra VCs are further non-star lanes.

use super::duato::escape_layout;
use super::routing::{unified_organization, ChienModel, ClassLayout, RoutingAlgorithm};
use super::{dimension_order, Dir, Hop, Knobs, NodeId, Port, Relation};
use crate::spec::{Adaptivity, Organization, RouterDatapath, Topology};

/// *-channels, as one object ([`RoutingAlgorithm`]).
#[derive(Debug, Clone, Copy)]
pub struct StarChannels;

impl RoutingAlgorithm for StarChannels {
    fn title(&self) -> &'static str {
        "*-channels routing"
    }

    fn adaptivity(&self) -> Adaptivity {
        Adaptivity::FullyAdaptive
    }

    /// Tori only (Gravano et al., survey §6.1).
    fn supports(&self, topology: Topology, _: u32) -> Result<(), String> {
        match topology {
            Topology::Torus => Ok(()),
            Topology::UniTorus => Err(super::routing::one_way_refusal("*-channels")),
            Topology::Mesh | Topology::Hypercube => Err(
                "*-channels is defined on tori (Gravano et al., survey §6.1); on a mesh \
                 use duato, the same escape-channel scheme without wraparound"
                    .into(),
            ),
        }
    }

    /// Two dateline star (escape) classes and one non-star class per
    /// direction ([`escape_layout`]): 3 VCs. The survey (§6.1) counts five
    /// per bidirectional link; with the same V on every channel that rounds
    /// up to 3. Chien's cost model (§5.4) assumes V = 2. `routergen check`
    /// proves 3 (Duato's extended dependency graph) and finds a cycle with 2
    /// once there are two dimensions (on a single ring of odd radix there is
    /// no non-star hop, and 2 would do).
    fn classes(&self, topology: Topology, dims: usize, knobs: Knobs) -> ClassLayout {
        escape_layout(topology, dims, knobs)
    }

    fn vc_reason(&self, _: Topology, _: u32) -> String {
        "It needs two star (escape) channels with a dateline and one non-star channel \
         per direction (survey §6.1)."
            .into()
    }

    /// Figure 8: (4n+1)x(4n+1), a crossbar port per channel class (star and
    /// non-star) on every link.
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
        ChienModel::Studied {
            figure_row: "*-Channels",
            topology: Topology::Torus,
            vcs: 2,
        }
    }

    fn route(&self, rel: &Relation, node: NodeId, dest: NodeId, out: &mut Vec<Hop>) {
        let net = &rel.net;
        let (star, nonstar) = if rel.knobs.escape {
            (
                dimension_order::next(rel, node, dest),
                rel.dateline_classes(),
            )
        } else {
            (None, 0)
        };
        if let Some((port, class)) = star {
            rel.push_class(out, port, class, true);
        }
        for d in 0..net.n() {
            let (plus, minus, _) = net.minimal_dirs(node, dest, d);
            for (ok, dir) in [(plus, Dir::Plus), (minus, Dir::Minus)] {
                let port = Port::link(d, dir);
                if ok && star.map(|(p, _)| p) != Some(port) {
                    rel.push_class(out, port, nonstar, false);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::{Input, Network};
    use super::*;
    use crate::spec::{Algorithm, Topology};

    #[test]
    fn the_dimension_order_hop_is_star_only() {
        let net = Network::new(Topology::Torus, 2, 5).unwrap();
        let rel = Relation::new(Algorithm::StarChannels, net, 3).unwrap();
        let hops = rel.hops(net.node_at(&[0, 0]), Input::INJECTED, net.node_at(&[1, 4]));
        let x: Vec<&Hop> = hops
            .iter()
            .filter(|h| h.port == Port::link(0, Dir::Plus))
            .collect();
        let y: Vec<&Hop> = hops
            .iter()
            .filter(|h| h.port == Port::link(1, Dir::Minus))
            .collect();
        assert_eq!(x.len(), 1);
        assert!(x[0].escape && x[0].vc < 2);
        assert_eq!(y.len(), 1);
        assert!(!y[0].escape && y[0].vc == 2);
    }
}
