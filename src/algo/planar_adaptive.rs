//! Planar-adaptive routing (Chien and Kim; Chien §5.2; survey §6.2).
//!
//! Adaptive plane A_i spans dimensions d_i and d_{i+1}, i = 0..n-2. A message
//! routes through A_0, A_1, ... in turn, minimally and adaptively within the
//! current plane, and leaves A_i when its offset in d_i is zero; in the last
//! plane A_{n-2} it finishes both dimensions.
//!
//! Reading chosen where the survey contradicts itself: §6.2 says both
//! "routing in adaptive plane A_i reduces the distance in d_i to zero" and
//! "in plane A_i, the d_{i+1} distance is reduced to zero first, then the
//! routing continues in d_i exclusively". We take the first: the survey's
//! own fault-tolerant variant (§7, step 5) says "we cannot be blocked in
//! d_{i+1} and have reduced the d_i distance to zero. If this were the case,
//! we would have proceeded to the next adaptive plane", which only holds if
//! A_i ends when d_i is done, and Chien §5.2 describes the router as adaptive
//! in both dimensions of the plane ("routing decisions to only four
//! alternatives"). Within A_i every minimal hop in d_i or d_{i+1} is allowed.
//!
//! Virtual channels on meshes (Chien and Kim, as Chien §5.2 counts them:
//! three per physical channel, two when n = 2, footnote 4): within A_i, hops
//! in d_i use d_i's plane class; hops in d_{i+1} use the increasing class
//! when the message travels + in d_i and the decreasing class otherwise
//! (once d_i is zero in the last plane, the increasing class). The increasing
//! and decreasing sub-networks each move one way along d_i, so no cycle closes
//! inside a plane; each class belongs to one plane and messages visit planes
//! in increasing order, so none closes across planes. Dimension 0 is never
//! the second dimension of a plane and dimension n-1 never the first, hence
//! 3 classes for n >= 3 and 2 for n = 2.
//!
//! Found by the checker, not in the papers: with V = 2 on an n >= 3 mesh the
//! plane class folds onto the increasing class ([`super::VcMap`] maps class c
//! to VC c mod V) and the relation is still deadlock-free (proved for n = 3
//! and 4, k = 3 to 5). Sketch: take the lowest dimension q with hops in a
//! would-be cycle; it needs both q+ and q- hops, and getting from a q+ hop
//! to a q- hop needs a d_{q+1} hop on the decreasing class, which only a
//! message already travelling q- takes. `Algorithm::min_vcs` keeps Chien's 3.
//!
//! Tori. Chien and Kim define the algorithm for tori too, but neither paper
//! here gives the torus channel classes. The obvious reading, a dateline
//! pair (survey §8) for each mesh class, doubling the count to 4 (n = 2) and
//! 6, is refuted by the checker: within a plane a message can "spiral",
//! one message crossing the d_i dateline and another re-entering d_i's
//! before-dateline class after a d_{i+1} hop, e.g.
//! `(2,0)+x vc1 -> (3,0)+y vc1 -> (3,1)+x vc0 -> (0,1)+x vc1 -> ...` on a
//! 4-ary 2-cube. Our reading: a d_{i+1} hop's class also records the d_i
//! dateline phase of the message (whether the d_i wraparound link is still
//! ahead), so second-dimension classes are increasing/decreasing x d_i phase
//! x own dateline class = 8, and first-dimension classes are d_i's dateline
//! pair = 2. Along any message the phase only moves from "ahead" to "behind",
//! so a dependency cycle keeps one phase and one sub-network; within it d_i
//! moves one way and never past the wraparound link, so the cycle has no d_i
//! hop, and a d_{i+1}-only cycle is one ring broken by its own dateline. That
//! is 8 VCs for n = 2 and 10 for n >= 3 (middle dimensions carry both
//! roles), which the checker proves. A destination k/2 away takes the plus
//! direction, so the sub-networks are well defined. One VC fewer folds the
//! last second-dimension class onto VC 0: the checker finds a cycle on the
//! 5-ary 2-cube and the 4-ary 3-cube, not on the 3- and 4-ary 2-cubes or the
//! 3-ary 3-cube; the minimum is the class count on every radix.

use super::routing::{dateline_classes, ChienModel, ClassLayout, RoutingAlgorithm};
use super::{Dir, Hop, Kind, Knobs, Network, NodeId, Port, Relation, VcMap};
use crate::error::{Error, Result};
use crate::spec::{Adaptivity, Datapath, Organization, RouterDatapath, Topology};

/// Planar-adaptive routing, as one object ([`RoutingAlgorithm`]).
#[derive(Debug, Clone, Copy)]
pub struct PlanarAdaptive;

impl RoutingAlgorithm for PlanarAdaptive {
    fn title(&self) -> &'static str {
        "planar-adaptive routing"
    }

    fn adaptivity(&self) -> Adaptivity {
        Adaptivity::PartiallyAdaptive
    }

    /// Meshes and tori of two dimensions or more.
    fn supports(&self, topology: Topology, dims: u32) -> std::result::Result<(), String> {
        if dims < 2 {
            return Err(
                "planar-adaptive routing routes in planes of two dimensions (Chien §5.2), \
                 so it needs at least 2 dimensions"
                    .into(),
            );
        }
        if topology == Topology::UniTorus {
            return Err(super::routing::one_way_refusal("planar-adaptive routing"));
        }
        if topology == Topology::Hypercube {
            return Err(
                "planar-adaptive routing is defined on meshes and tori (Chien and Kim, \
                 survey §6.2); a hypercube is a 2-ary mesh: use topology = mesh, radix = 2"
                    .into(),
            );
        }
        Ok(())
    }

    /// [`classes_per_dim`]: 3 VCs, or 2 when n = 2 (Chien §5.2 and its
    /// footnote 4; survey §6.2 for meshes; `routergen check` also proves a
    /// 2-VC variant on n >= 3 meshes that shares the plane class with the
    /// increasing class, see the module comment; the published 3 is kept).
    /// On a torus, 8 when n = 2 and 10 when n >= 3: giving each mesh class a
    /// dateline pair (4 and 6) is refuted by `routergen check` (a dependency
    /// cycle spirals through both dimensions of a plane), so the second
    /// dimension's classes also record the first dimension's dateline phase
    /// (module comment); the checker proves that relation.
    fn classes(&self, topology: Topology, dims: usize, knobs: Knobs) -> ClassLayout {
        let ring = dateline_classes(topology, knobs);
        ClassLayout {
            per_dim: classes_per_dim(dims, ring, phases(ring, knobs)),
            lanes_to: None,
        }
    }

    fn vc_reason(&self, topology: Topology, dims: u32) -> String {
        format!(
            "Chien §5.2 and the survey (§6.2) give 3 VCs for meshes{}{}.",
            if dims == 2 {
                ", 2 for a 2-D mesh (Chien, footnote 4)"
            } else {
                ""
            },
            if topology == Topology::Torus {
                "; on a torus a dateline pair for each is not enough (routergen check finds \
                 a cycle): the second dimension of a plane also needs its classes split by \
                 the first dimension's dateline phase, 8 VCs for n = 2 and 10 beyond"
            } else {
                ""
            }
        )
    }

    /// Figure 6: 4x4 slices. Figure 10 counts n slices for an
    /// n-dimensional router (6,344 = 2 x 3,172 at n = 2).
    fn organization(&self, _: Topology, dims: u32) -> Organization {
        Organization {
            datapath: Datapath::PlaneSlices,
            crossbars: dims,
            ports: 4,
            freedom: 4,
            classes_per_link: 1,
        }
    }

    fn organization_reason(&self) -> &'static str {
        "one slice per adaptive plane, Chien §5.2 Figure 6"
    }

    fn datapaths(&self) -> &'static [RouterDatapath] {
        &[RouterDatapath::Unified, RouterDatapath::Sliced]
    }

    fn chien(&self) -> ChienModel {
        ChienModel::Studied {
            figure_row: "Planar adaptive",
            topology: Topology::Mesh,
            vcs: 3,
        }
    }

    fn route(&self, rel: &Relation, node: NodeId, dest: NodeId, out: &mut Vec<Hop>) {
        route(rel, node, dest, out)
    }
}

impl Relation {
    /// Plane slice `i` of the planar-adaptive relation `full` on a mesh:
    /// the 2-D mesh of dimensions i and i+1 (its dimensions 0 and 1), the
    /// VCs `full` gives those dimensions in plane A_i, and the local port
    /// for a packet whose plane is past A_i ([`Plane`]).
    pub fn plane(full: &Relation, i: usize) -> Result<Relation> {
        let n = full.net.n();
        if full.kind != Kind::Shipped(crate::spec::Algorithm::PlanarAdaptive)
            || !matches!(full.net.topology, Topology::Mesh | Topology::Torus)
            || i + 2 > n
        {
            return Err(Error::invalid(format!(
                "plane slice {i}: defined for the planes A_0..A_{} of planar-adaptive \
                 routing on a mesh or torus, not for {} on a {}-dimensional {}",
                n.saturating_sub(2),
                full.name(),
                n,
                full.net.topology
            )));
        }
        Ok(Relation {
            net: Network::new(full.net.topology, 2, full.net.radix)?,
            kind: Kind::Plane(Plane {
                index: i,
                last: i + 2 == n,
            }),
            vcs: full.vcs,
            knobs: full.knobs,
            vc_map: plane_vc_map(full, i),
        })
    }
}

/// Number of channel classes of each dimension: `ring` is 2 with dateline
/// classes on a torus, else 1; `phases` is 2 when the second dimension's
/// classes record the first dimension's dateline phase, else 1.
pub fn classes_per_dim(n: usize, ring: usize, phases: usize) -> Vec<usize> {
    (0..n)
        .map(|d| {
            let second = if d >= 1 { 2 * ring * phases } else { 0 };
            let first = if d + 1 < n { ring } else { 0 };
            second + first
        })
        .collect()
}

/// 2 when the second dimension's classes record the first dimension's
/// dateline phase (tori, unless the knob turns it off), else 1.
pub fn phases(ring: usize, knobs: Knobs) -> usize {
    if ring == 2 && knobs.plane_phase {
        2
    } else {
        1
    }
}

/// Class of a hop in `dim` as the second dimension of plane A_{dim-1}:
/// increasing (first dimension travelled +) or decreasing, then on a torus
/// the first dimension's dateline phase and the hop's own dateline class.
fn second_class(
    rel: &Relation,
    node: NodeId,
    dest: NodeId,
    dim: usize,
    dir: Dir,
    first_dir: Option<Dir>,
) -> usize {
    let net = &rel.net;
    let s = usize::from(first_dir == Some(Dir::Minus));
    let r = rel.dateline_classes();
    if r == 2 {
        let phases = phases(r, rel.knobs);
        let phase = if phases == 2 {
            net.dateline_class(node, dest, dim - 1, first_dir.unwrap_or(Dir::Plus))
        } else {
            0
        };
        let own = net.dateline_class(node, dest, dim, dir);
        (s * phases + phase) * 2 + own
    } else {
        s
    }
}

/// Class of a hop in `dim` as the first dimension of plane A_dim: after the
/// second-dimension classes, its dateline class on a torus.
fn first_class(rel: &Relation, node: NodeId, dest: NodeId, dim: usize, dir: Dir) -> usize {
    // The second-dimension classes of the plane before come first.
    let base = if dim >= 1 { plane_classes(rel)[1] } else { 0 };
    if rel.dateline_classes() == 2 {
        base + rel.net.dateline_class(node, dest, dim, dir)
    } else {
        base
    }
}

fn route(rel: &Relation, node: NodeId, dest: NodeId, out: &mut Vec<Hop>) {
    let net = &rel.net;
    let n = net.n();
    let Some(low) = net.lowest_differing_dim(node, dest) else {
        return;
    };
    // The current plane: A_low, or the last plane once only d_{n-1} is left.
    let i = low.min(n - 2);
    let first_dir = net.dor_dir(node, dest, i);
    if let Some(dir) = first_dir {
        let c = first_class(rel, node, dest, i, dir);
        rel.push_class(out, Port::link(i, dir), c, false);
    }
    if let Some(dir) = net.dor_dir(node, dest, i + 1) {
        let c = second_class(rel, node, dest, i + 1, dir, first_dir);
        rel.push_class(out, Port::link(i + 1, dir), c, false);
    }
}

/// Plane slice `index` of a planar-adaptive router (Chien §5.2, Figure
/// 6): the relation of plane A_index alone, on the 2-D mesh or torus of
/// its dimensions (d_index is its dimension 0, d_index+1 its dimension 1).
///
/// A packet inside the slice routes as in A_index: every minimal hop in
/// either dimension, dimension 0 on its plane class, dimension 1 on the
/// increasing class when it travels + in dimension 0 and the decreasing
/// class otherwise (on a torus, each also by dateline class and dimension
/// 1's classes by dimension 0's dateline phase, as in [`PlanarAdaptive`]). Once its dimension-0 offset is zero it has finished
/// A_index and leaves by the local port toward the next slice, unless the
/// plane is the last one, where it finishes dimension 1 on the increasing
/// class; at its destination it leaves by the local port. Offsets in lower
/// dimensions are zero in every packet a slice sees (planes are visited in
/// order), so these are exactly the hops of the n-D relation at that node
/// (`plane_slices_permit_exactly_the_planar_relation`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Plane {
    /// The plane's number i: it spans dimensions d_i and d_{i+1}.
    pub index: usize,
    /// The last plane, A_{n-2}, which finishes both of its dimensions.
    pub last: bool,
}

/// Classes of a plane slice's two dimensions: its first dimension's plane
/// class (a dateline pair on a torus), its second dimension's increasing
/// and decreasing classes (on a torus each by the first dimension's
/// dateline phase and its own dateline class).
pub(crate) fn plane_classes(rel: &Relation) -> [usize; 2] {
    let r = rel.dateline_classes();
    [r, 2 * r * phases(r, rel.knobs)]
}

/// The VCs of plane A_i's classes in the relation `full`, as the plane
/// slice's map: dimension 0 (d_i) its plane classes, dimension 1
/// (d_{i+1}) its second-dimension classes, in the order of
/// [`first_class`] and [`second_class`].
pub(crate) fn plane_vc_map(full: &Relation, i: usize) -> VcMap {
    let map = &full.vc_map.map;
    let [first, second] = plane_classes(full);
    let base = if i >= 1 { second } else { 0 };
    VcMap {
        map: vec![
            (base..base + first).map(|c| map[i][c].clone()).collect(),
            (0..second).map(|c| map[i + 1][c].clone()).collect(),
        ],
    }
}

pub(crate) fn route_plane(
    rel: &Relation,
    plane: &Plane,
    node: NodeId,
    dest: NodeId,
    out: &mut Vec<Hop>,
) {
    let net = &rel.net;
    let first_dir = net.dor_dir(node, dest, 0);
    if first_dir.is_none() && !plane.last {
        // A_i is done: on to the next plane's slice.
        out.push(Hop {
            port: Port::Local,
            vc: 0,
            escape: false,
        });
        return;
    }
    // The classes of the n-D relation, read on the plane's coordinates (a
    // torus's dateline classes depend on one coordinate each).
    if let Some(dir) = first_dir {
        let c = first_class(rel, node, dest, 0, dir);
        rel.push_class(out, Port::link(0, dir), c, false);
    }
    if let Some(dir) = net.dor_dir(node, dest, 1) {
        let c = second_class(rel, node, dest, 1, dir, first_dir);
        rel.push_class(out, Port::link(1, dir), c, false);
    }
}

#[cfg(test)]
mod tests {
    use super::super::{Input, Network};
    use super::*;
    use crate::spec::{Algorithm, Topology};

    #[test]
    fn class_counts_match_chien_section_5_2() {
        // Chien §5.2: three VCs; footnote 4: two when n = 2.
        assert_eq!(classes_per_dim(2, 1, 1).into_iter().max(), Some(2));
        assert_eq!(classes_per_dim(3, 1, 1).into_iter().max(), Some(3));
        assert_eq!(classes_per_dim(5, 1, 1).into_iter().max(), Some(3));
        // Tori, our reading (module comment): 8 for n = 2, 10 beyond.
        assert_eq!(classes_per_dim(2, 2, 2).into_iter().max(), Some(8));
        assert_eq!(classes_per_dim(3, 2, 2).into_iter().max(), Some(10));
    }

    #[test]
    fn adaptive_within_the_plane_then_the_next_plane() {
        let net = Network::new(Topology::Mesh, 3, 4).unwrap();
        let rel = Relation::new(Algorithm::PlanarAdaptive, net, 3).unwrap();
        // Dimension 0 has one class, so its extra VCs are lanes: dedup ports.
        let ports = |node: NodeId, dest: NodeId| -> Vec<Port> {
            let mut p: Vec<Port> = rel
                .hops(node, Input::INJECTED, dest)
                .iter()
                .map(|h| h.port)
                .collect();
            p.dedup();
            p
        };
        let src = net.node_at(&[0, 0, 0]);
        // In A_0 with offsets in x, y and z: x or y only.
        assert_eq!(
            ports(src, net.node_at(&[2, 1, 3])),
            vec![Port::link(0, Dir::Plus), Port::link(1, Dir::Plus)]
        );
        // x done: plane A_1, y or z.
        assert_eq!(
            ports(src, net.node_at(&[0, 1, 3])),
            vec![Port::link(1, Dir::Plus), Port::link(2, Dir::Plus)]
        );
        // Only z left: last plane, z only.
        assert_eq!(
            ports(src, net.node_at(&[0, 0, 2])),
            vec![Port::link(2, Dir::Plus)]
        );
    }

    #[test]
    fn second_dimension_class_follows_the_first_dimension_direction() {
        let net = Network::new(Topology::Mesh, 3, 4).unwrap();
        let rel = Relation::new(Algorithm::PlanarAdaptive, net, 3).unwrap();
        let y_vc = |src: &[u32], dst: &[u32]| {
            rel.hops(net.node_at(src), Input::INJECTED, net.node_at(dst))
                .iter()
                .find(|h| h.port == Port::link(1, Dir::Plus))
                .map(|h| h.vc)
        };
        assert_eq!(y_vc(&[0, 0, 0], &[2, 1, 0]), Some(0)); // +x: increasing
        assert_eq!(y_vc(&[3, 0, 0], &[1, 1, 0]), Some(1)); // -x: decreasing
        assert_eq!(y_vc(&[0, 0, 0], &[0, 1, 1]), Some(2)); // y leads A_1: plane class
    }

    /// The plane slices against the n-D relation, node by node: at x for
    /// y, slice j < i (i the current plane: the lowest differing
    /// dimension, at most n-2) passes the packet on by its local port, and
    /// slice i permits exactly the n-D relation's hops, its dimensions 0
    /// and 1 being d_i and d_{i+1}.
    #[test]
    fn plane_slices_permit_exactly_the_planar_relation() {
        for (topology, n, k, v) in [
            (Topology::Mesh, 2, 4, 2),
            (Topology::Mesh, 3, 4, 3),
            (Topology::Mesh, 3, 3, 4),
            (Topology::Mesh, 4, 3, 3),
            (Topology::Mesh, 4, 3, 5),
            (Topology::Torus, 2, 4, 8),
            (Topology::Torus, 2, 5, 9),
            (Topology::Torus, 3, 4, 10),
            (Topology::Torus, 3, 3, 11),
            (Topology::Torus, 4, 3, 10),
        ] {
            let net = Network::new(topology, n, k).unwrap();
            let full = Relation::new(Algorithm::PlanarAdaptive, net, v).unwrap();
            let n = n as usize;
            let planes: Vec<Relation> = (0..n - 1)
                .map(|i| Relation::plane(&full, i).unwrap())
                .collect();
            let at = |plane: &Relation, x: NodeId, i: usize| {
                plane.net.node_at(&[net.coord(x, i), net.coord(x, i + 1)])
            };
            for x in 0..net.nodes() {
                for y in (0..net.nodes()).filter(|&y| y != x) {
                    let i = net.lowest_differing_dim(x, y).unwrap().min(n - 2);
                    for (j, plane) in planes.iter().enumerate().take(i) {
                        let h = plane.hops(at(plane, x, j), Input::INJECTED, at(plane, y, j));
                        assert_eq!(h.len(), 1);
                        assert_eq!(h[0].port, Port::Local, "slice {j} at {x} for {y}");
                    }
                    let plane = &planes[i];
                    let mut got: Vec<(Port, u8)> = plane
                        .hops(at(plane, x, i), Input::INJECTED, at(plane, y, i))
                        .into_iter()
                        .map(|h| match h.port {
                            Port::Link { dim, dir } => (Port::link(i + dim as usize, dir), h.vc),
                            Port::Local => (Port::Local, h.vc),
                        })
                        .collect();
                    let mut want: Vec<(Port, u8)> = full
                        .hops(x, Input::INJECTED, y)
                        .into_iter()
                        .map(|h| (h.port, h.vc))
                        .collect();
                    got.sort();
                    want.sort();
                    assert_eq!(
                        got, want,
                        "{topology} n {n} V {v}: plane {i} at {x} for {y}"
                    );
                }
            }
        }
    }

    #[test]
    fn planes_only_of_planar_meshes_and_tori() {
        let torus = Network::new(Topology::Torus, 3, 4).unwrap();
        let t = Relation::new(Algorithm::PlanarAdaptive, torus, 10).unwrap();
        assert_eq!(Relation::plane(&t, 1).unwrap().classes_needed(), 8);
        assert!(Relation::plane(&t, 2).is_err());
        let mesh = Network::new(Topology::Mesh, 3, 4).unwrap();
        let m = Relation::new(Algorithm::PlanarAdaptive, mesh, 3).unwrap();
        assert!(Relation::plane(&m, 1).is_ok());
        assert!(Relation::plane(&m, 2).is_err());
        let dor = Relation::new(Algorithm::DimensionOrder, mesh, 3).unwrap();
        assert!(Relation::plane(&dor, 0).is_err());
    }
}
