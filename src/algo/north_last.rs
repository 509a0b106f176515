//! North-last routing, the turn model variant that prohibits the two turns
//! out of north (Glass and Ni; survey §6.2, Figure 14b; LAPSES Figure 7c):
//! route adaptively east, west and south, north only when nothing else is
//! left. Defined on 2-D meshes (it names compass directions); shared
//! turn-model facts in [`super::turn_model`].

use super::routing::{ChienModel, ClassLayout, RoutingAlgorithm};
use super::turn_model::{self, offsets, push, Compass};
use super::{Hop, Knobs, NodeId, Relation};
use crate::spec::{Adaptivity, Organization, RouterDatapath, Topology};

/// North-last routing, as one object ([`RoutingAlgorithm`]).
#[derive(Debug, Clone, Copy)]
pub struct NorthLast;

impl RoutingAlgorithm for NorthLast {
    fn title(&self) -> &'static str {
        "north-last routing"
    }

    fn adaptivity(&self) -> Adaptivity {
        Adaptivity::PartiallyAdaptive
    }

    fn supports(&self, topology: Topology, dims: u32) -> Result<(), String> {
        turn_model::supports("north-last", true, topology, dims)
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

    /// Chien models the turn model with negative-first (§5.3).
    fn chien(&self) -> ChienModel {
        ChienModel::CostedAs {
            like: "the turn model",
            section: 3,
        }
    }

    fn route(&self, rel: &Relation, node: NodeId, dest: NodeId, out: &mut Vec<Hop>) {
        let (dx, dy) = offsets(rel, node, dest);
        if dx > 0 {
            push(rel, out, Compass::East);
        }
        if dx < 0 {
            push(rel, out, Compass::West);
        }
        if dy < 0 {
            push(rel, out, Compass::South);
        }
        if dy > 0 && dx == 0 {
            push(rel, out, Compass::North);
        }
    }
}
