//! What each routing algorithm asks of a router, as the papers state it.
//!
//! These are the spec-level facts (which topologies, how many virtual
//! channels, which datapath organization); the routing relations themselves
//! live in `crate::algo`.

use super::names::named_enum;
use super::Topology;

named_enum!(
    /// Routing algorithms, by the names users type.
    Algorithm, "algorithm", {
        /// Dimension order (Chien §5.1); e-cube on hypercubes (survey §5).
        DimensionOrder => "dor" ["xy", "ecube", "e-cube", "dimension-order"],
        /// Planar-adaptive routing (Chien §5.2; Chien and Kim).
        PlanarAdaptive => "planar" ["planar-adaptive", "par"],
        /// Turn model, negative-first variant (Chien §5.3; survey §6.2).
        NegativeFirst => "negative-first" ["turn"],
        /// Turn model, west-first variant (survey §6.2), 2-D meshes only.
        WestFirst => "west-first" [],
        /// Turn model, north-last variant (survey §6.2), 2-D meshes only.
        NorthLast => "north-last" [],
        /// *-channels (Chien §5.4; Gravano et al. in survey §6.1), tori only.
        StarChannels => "star-channels" ["*-channels", "star"],
        /// Duato's fully adaptive minimal routing with a dimension-order escape
        /// sub-network (survey §6.1; the algorithm of the LAPSES experiments).
        Duato => "duato" ["duato-adaptive"],
    }
);

/// How much choice the algorithm leaves to the router.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Adaptivity {
    Deterministic,
    PartiallyAdaptive,
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
    pub fn adaptivity(self) -> Adaptivity {
        match self {
            Algorithm::DimensionOrder => Adaptivity::Deterministic,
            Algorithm::PlanarAdaptive
            | Algorithm::NegativeFirst
            | Algorithm::WestFirst
            | Algorithm::NorthLast => Adaptivity::PartiallyAdaptive,
            Algorithm::StarChannels | Algorithm::Duato => Adaptivity::FullyAdaptive,
        }
    }

    /// Whether the algorithm is defined on `topology` with `dims` dimensions;
    /// `Err` carries the reason, for the user.
    pub fn supports(self, topology: Topology, dims: u32) -> Result<(), String> {
        use Algorithm::*;
        use Topology::*;
        match (self, topology) {
            (PlanarAdaptive, _) if dims < 2 => Err(
                "planar-adaptive routing routes in planes of two dimensions (Chien §5.2), \
                 so it needs at least 2 dimensions"
                    .into(),
            ),
            (PlanarAdaptive, Hypercube) => Err(
                "planar-adaptive routing is defined on meshes and tori (Chien and Kim, \
                 survey §6.2); a hypercube is a 2-ary mesh: use --topology mesh --radix 2"
                    .into(),
            ),
            (NegativeFirst | WestFirst | NorthLast, Torus) => Err(format!(
                "the turn model ({self}) is implemented for meshes and hypercubes; on a \
                 torus its wraparound channels need turn rules of their own (survey §6.2, \
                 step 5) that routergen does not provide: use --topology mesh, or an \
                 algorithm defined on tori (dor, planar, star-channels, duato)"
            )),
            (WestFirst | NorthLast, Mesh) if dims != 2 => Err(format!(
                "{self} names compass directions of a 2-D mesh (survey §6.2), so it needs \
                 --dims 2; negative-first is the turn-model variant for any dimension"
            )),
            (WestFirst | NorthLast, Hypercube) => Err(format!(
                "{self} names compass directions of a 2-D mesh (survey §6.2); on a \
                 hypercube use negative-first"
            )),
            (StarChannels, Mesh | Hypercube) => Err(
                "*-channels is defined on tori (Gravano et al., survey §6.1); on a mesh \
                 use duato, the same escape-channel scheme without wraparound"
                    .into(),
            ),
            _ => Ok(()),
        }
    }

    /// Minimum virtual channels per physical channel for deadlock freedom.
    ///
    /// - dimension order: 1, but 2 on a torus (dateline VCs; survey §5 and §8,
    ///   Cray T3D). `routergen check` finds the ring cycle with 1 VC for
    ///   k >= 4; on 3-rings minimal paths take one hop per ring, so 1 would do;
    /// - planar-adaptive: 3, or 2 when n = 2 (Chien §5.2 and its footnote 4;
    ///   survey §6.2 for meshes; `routergen check` also proves a 2-VC variant
    ///   on n >= 3 meshes that shares the plane class with the increasing
    ///   class, see `crate::algo::planar_adaptive`; the published 3 is kept). On a torus, 8 when n = 2 and 10 when n >= 3:
    ///   giving each mesh class a dateline pair (4 and 6) is refuted by
    ///   `routergen check` (a dependency cycle spirals through both dimensions
    ///   of a plane), so the second dimension's classes also record the first
    ///   dimension's dateline phase (see `crate::algo::planar_adaptive`); the
    ///   checker proves that relation;
    /// - turn model: none beyond the one (Chien §5.3);
    /// - *-channels: two dateline escape (star) channels plus one adaptive
    ///   channel per direction. The survey (§6.1) counts five per bidirectional
    ///   link; with the same V on every channel that rounds up to 3. Chien's
    ///   cost model (§5.4) assumes V = 2. `routergen check` proves 3 (Duato's
    ///   extended dependency graph) and finds a cycle with 2;
    /// - Duato: one adaptive plus the escape sub-network's channels: 2 on
    ///   meshes and hypercubes (LAPSES §2.3), 3 on a torus (dateline escape;
    ///   Quaglia et al. §3: "at least three virtual channels" on a 2-D torus);
    ///   `routergen check` proves these and finds a cycle with one fewer.
    pub fn min_vcs(self, topology: Topology, dims: u32) -> u32 {
        use Algorithm::*;
        let torus = topology == Topology::Torus;
        match self {
            DimensionOrder => {
                if torus {
                    2
                } else {
                    1
                }
            }
            PlanarAdaptive => match (torus, dims) {
                (false, 2) => 2,
                (false, _) => 3,
                (true, 2) => 8,
                (true, _) => 10,
            },
            NegativeFirst | WestFirst | NorthLast => 1,
            StarChannels => 3,
            Duato => {
                if torus {
                    3
                } else {
                    2
                }
            }
        }
    }

    /// The datapath organization of Chien §5 for this algorithm.
    pub fn organization(self, topology: Topology, dims: u32) -> Organization {
        // Physical links per node: two per dimension, one on a hypercube.
        let links_per_dim = if topology == Topology::Hypercube {
            1
        } else {
            2
        };
        let links = links_per_dim * dims;
        let (datapath, crossbars, ports, classes) = match self {
            // Figure 5: per dimension, inputs D+, D- and from a higher
            // dimension; outputs D+, D- and to a lower dimension.
            Algorithm::DimensionOrder => (Datapath::DimensionSlices, dims, links_per_dim + 1, 1),
            // Figure 6: 4x4 slices. Figure 10 counts n slices for an
            // n-dimensional router (6,344 = 2 x 3,172 at n = 2).
            Algorithm::PlanarAdaptive => (Datapath::PlaneSlices, dims, 4, 1),
            // Figure 7: (2n+1)x(2n+1), the +1 being the local port.
            Algorithm::NegativeFirst | Algorithm::WestFirst | Algorithm::NorthLast => {
                (Datapath::Unified, 1, links + 1, 1)
            }
            // Figure 8: (4n+1)x(4n+1), a crossbar port per channel class.
            Algorithm::StarChannels | Algorithm::Duato => (Datapath::Unified, 1, 2 * links + 1, 2),
        };
        Organization {
            datapath,
            crossbars,
            ports,
            freedom: ports,
            classes_per_link: classes,
        }
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
