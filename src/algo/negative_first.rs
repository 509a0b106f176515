//! Negative-first routing, the turn model variant for any number of
//! dimensions (Glass and Ni; Chien §5.3; survey §6.2, Figure 14c): it
//! prohibits every turn from a positive to a negative direction, so a
//! message routes adaptively in all its negative directions until there are
//! none, then adaptively in all its positive ones. On a hypercube (a 2-ary
//! mesh) a negative hop clears a 1 bit. Shared turn-model facts in
//! [`super::turn_model`].

use super::routing::{ChienModel, ClassLayout, RoutingAlgorithm};
use super::turn_model;
use super::{Dir, Hop, Knobs, NodeId, Port, Relation};
use crate::spec::{Adaptivity, Organization, RouterDatapath, Topology};

/// Negative-first routing, as one object ([`RoutingAlgorithm`]).
#[derive(Debug, Clone, Copy)]
pub struct NegativeFirst;

impl RoutingAlgorithm for NegativeFirst {
    fn title(&self) -> &'static str {
        "negative-first routing"
    }

    fn adaptivity(&self) -> Adaptivity {
        Adaptivity::PartiallyAdaptive
    }

    fn supports(&self, topology: Topology, dims: u32) -> Result<(), String> {
        turn_model::supports("negative-first", false, topology, dims)
    }

    fn classes(&self, _: Topology, dims: usize, _: Knobs) -> ClassLayout {
        turn_model::classes(dims)
    }

    fn vc_reason(&self, _: Topology, _: u32) -> String {
        String::new()
    }

    fn organization(&self, topology: Topology, dims: u32) -> Organization {
        turn_model::organization(topology, dims)
    }

    fn organization_reason(&self) -> &'static str {
        turn_model::ORGANIZATION_REASON
    }

    fn datapaths(&self) -> &'static [RouterDatapath] {
        turn_model::DATAPATHS
    }

    /// Chien §5.3's turn-model router, without virtual channels.
    fn chien(&self) -> ChienModel {
        ChienModel::Studied {
            figure_row: "Turn Model",
            topology: Topology::Mesh,
            vcs: 1,
        }
    }

    fn route(&self, rel: &Relation, node: NodeId, dest: NodeId, out: &mut Vec<Hop>) {
        let net = &rel.net;
        let (mut neg, mut pos) = (Vec::new(), Vec::new());
        for d in 0..net.n() {
            let (a, b) = (net.coord(node, d), net.coord(dest, d));
            if b < a {
                neg.push(d);
            } else if b > a {
                pos.push(d);
            }
        }
        let (dims, dir) = if neg.is_empty() {
            (pos, Dir::Plus)
        } else {
            (neg, Dir::Minus)
        };
        for d in dims {
            rel.push_class(out, Port::link(d, dir), 0, false);
        }
    }
}
