//! The routing algorithms users can name, and the registry mapping each to
//! its object.
//!
//! Each algorithm is one object under `crate::algo` ([`RoutingAlgorithm`]):
//! its relation, the topologies it is defined on, its minimum virtual
//! channels, Chien's organization for it, its escape channels and title,
//! each with the reason. The `algorithms!` list below is the registration:
//! one entry per algorithm gives the variant of [`Algorithm`], the names
//! users type, and the object ([`Algorithm::routing`]); adding an algorithm
//! is its file under `src/algo/`, the file's `mod` line, and one entry here.

use super::names::{named_enum, Named};
use super::{RouterDatapath, Topology};
use crate::algo::RoutingAlgorithm;

/// Declares [`Algorithm`] (through `named_enum!`) and
/// [`Algorithm::routing`], the one place a variant maps to its object.
macro_rules! algorithms {
    ($($(#[$vmeta:meta])* $variant:ident => $canon:literal [$($alias:literal),*] = $object:path),+ $(,)?) => {
        named_enum!(
            /// Routing algorithms, by the names users type.
            Algorithm, "algorithm", { $($(#[$vmeta])* $variant => $canon [$($alias),*]),+ }
        );

        impl Algorithm {
            /// The algorithm's object: everything it is
            /// ([`RoutingAlgorithm`]).
            pub fn routing(self) -> &'static dyn RoutingAlgorithm {
                match self {
                    $(Algorithm::$variant => &$object),+
                }
            }
        }
    };
}

algorithms!(
    /// Dimension order (Chien §5.1); e-cube on hypercubes (survey §5).
    DimensionOrder => "dor" ["xy", "ecube", "e-cube", "dimension-order"]
        = crate::algo::dimension_order::DimensionOrder,
    /// Planar-adaptive routing (Chien §5.2; Chien and Kim).
    PlanarAdaptive => "planar" ["planar-adaptive", "par"]
        = crate::algo::planar_adaptive::PlanarAdaptive,
    /// Turn model, negative-first variant (Chien §5.3; survey §6.2).
    NegativeFirst => "negative-first" ["turn"]
        = crate::algo::negative_first::NegativeFirst,
    /// Turn model, west-first variant (survey §6.2), 2-D meshes only.
    WestFirst => "west-first" [] = crate::algo::west_first::WestFirst,
    /// Turn model, north-last variant (survey §6.2), 2-D meshes only.
    NorthLast => "north-last" [] = crate::algo::north_last::NorthLast,
    /// *-channels (Chien §5.4; Gravano et al. in survey §6.1), tori only.
    StarChannels => "star-channels" ["*-channels", "star"]
        = crate::algo::star_channels::StarChannels,
    /// Duato's fully adaptive minimal routing with a dimension-order escape
    /// sub-network (survey §6.1; the algorithm of the LAPSES experiments).
    Duato => "duato" ["duato-adaptive"] = crate::algo::duato::Duato,
);

/// How much choice the algorithm leaves to the router.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Adaptivity {
    /// One output per packet (dimension order).
    Deterministic,
    /// A choice among some minimal outputs (planar-adaptive, the turn model).
    PartiallyAdaptive,
    /// A choice among every minimal output (*-channels, Duato).
    FullyAdaptive,
}

/// How the crossbar is partitioned (Chien §5, Figures 5-8).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Datapath {
    /// One small crossbar per dimension (Figure 5).
    DimensionSlices,
    /// One 4x4 slice per adaptive plane (Figure 6).
    PlaneSlices,
    /// One crossbar from all inputs to all outputs (Figures 7 and 8).
    Unified,
}

/// The datapath an algorithm needs on a given topology and dimension.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct Organization {
    /// How the crossbar is partitioned.
    pub datapath: Datapath,
    /// Number of crossbars (slices).
    pub crossbars: u32,
    /// Ports P of each crossbar.
    pub ports: u32,
    /// Routing freedom F: output choices an input can have (Chien Figure 2).
    pub freedom: u32,
    /// Crossbar ports per physical link: 2 where adaptive and escape (or
    /// star and non-star) channels have separate crossbar ports (Figure 8).
    pub classes_per_link: u32,
}

impl Algorithm {
    /// How much choice the algorithm leaves to the router
    /// ([`RoutingAlgorithm::adaptivity`]).
    pub fn adaptivity(self) -> Adaptivity {
        self.routing().adaptivity()
    }

    /// Whether the algorithm is defined on `topology` with `dims` dimensions;
    /// `Err` carries the reason, for the user ([`RoutingAlgorithm::supports`]).
    pub fn supports(self, topology: Topology, dims: u32) -> Result<(), String> {
        self.routing().supports(topology, dims)
    }

    /// Minimum virtual channels per physical channel for deadlock freedom
    /// ([`RoutingAlgorithm::min_vcs`]; each algorithm's file gives its
    /// reasons).
    pub fn min_vcs(self, topology: Topology, dims: u32) -> u32 {
        self.routing().min_vcs(topology, dims)
    }

    /// The datapath organization of Chien §5 for this algorithm
    /// ([`RoutingAlgorithm::organization`]).
    pub fn organization(self, topology: Topology, dims: u32) -> Organization {
        self.routing().organization(topology, dims)
    }

    /// The algorithms routergen builds with `datapath`
    /// ([`RoutingAlgorithm::datapaths`]), in registration order.
    pub fn built_with(datapath: RouterDatapath) -> Vec<Algorithm> {
        Algorithm::all()
            .into_iter()
            .filter(|a| a.routing().datapaths().contains(&datapath))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // Chien §5: dimension order P = F = 3; planar P = F = 4; turn model
    // P = F = 2n+1; *-channels P = F = 4n+1.
    #[test]
    fn organizations_match_chien_section_5() {
        for n in [2u32, 3, 4, 5, 10] {
            let dor = Algorithm::DimensionOrder.organization(Topology::Mesh, n);
            assert_eq!((dor.crossbars, dor.ports, dor.freedom), (n, 3, 3));
            let par = Algorithm::PlanarAdaptive.organization(Topology::Mesh, n);
            assert_eq!((par.ports, par.freedom), (4, 4));
            let turn = Algorithm::NegativeFirst.organization(Topology::Mesh, n);
            assert_eq!((turn.crossbars, turn.ports), (1, 2 * n + 1));
            let star = Algorithm::StarChannels.organization(Topology::Torus, n);
            assert_eq!((star.crossbars, star.ports), (1, 4 * n + 1));
        }
    }

    #[test]
    fn vc_minimums_follow_the_papers() {
        assert_eq!(Algorithm::PlanarAdaptive.min_vcs(Topology::Mesh, 3), 3);
        assert_eq!(Algorithm::PlanarAdaptive.min_vcs(Topology::Mesh, 2), 2);
        assert_eq!(Algorithm::PlanarAdaptive.min_vcs(Topology::Torus, 2), 8);
        assert_eq!(Algorithm::PlanarAdaptive.min_vcs(Topology::Torus, 3), 10);
        assert_eq!(Algorithm::DimensionOrder.min_vcs(Topology::Mesh, 3), 1);
        assert_eq!(Algorithm::DimensionOrder.min_vcs(Topology::Torus, 3), 2);
        assert_eq!(Algorithm::Duato.min_vcs(Topology::Mesh, 2), 2);
        assert_eq!(Algorithm::NegativeFirst.min_vcs(Topology::Mesh, 4), 1);
    }
}
