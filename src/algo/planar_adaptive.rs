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
//! Virtual channels (Chien and Kim, as Chien §5.2 counts them: three per
//! physical channel, two when n = 2, footnote 4): within A_i, hops in d_i use
//! the plane class of d_i; hops in d_{i+1} use the increasing class when the
//! message travels + in d_i and the decreasing class otherwise (once d_i is
//! zero in the last plane, the increasing class). The increasing and
//! decreasing sub-networks each move in one direction only along d_i, so no
//! cycle closes inside a plane; each channel class belongs to one plane and
//! messages visit planes in increasing order, so none closes across planes.
//! Dimension 0 is never the second dimension of a plane and dimension n-1
//! never the first, hence 3 classes for n >= 3 and 2 for n = 2.
//!
//! On a torus every class also needs its own dateline pair (survey §8), our
//! reading, which doubles the count (the checker proves it); a destination
//! k/2 away takes the plus direction, so the sub-network is well defined.

use super::{Dir, Hop, NodeId, Port, Relation};

/// Number of channel classes of each dimension; `ring` is 2 with dateline
/// classes on a torus, else 1.
pub fn classes_per_dim(n: usize, ring: usize) -> Vec<usize> {
    (0..n)
        .map(|d| {
            let second = usize::from(d >= 1) * 2; // increasing, decreasing
            let first = usize::from(d + 1 < n); // plane class
            (second + first) * ring
        })
        .collect()
}

/// Class index of dimension `dim`'s increasing (0), decreasing (1) or plane
/// class, before the dateline split.
fn base_class(dim: usize, role: Role) -> usize {
    match role {
        Role::Increasing => 0,
        Role::Decreasing => 1,
        Role::Plane => {
            if dim == 0 {
                0
            } else {
                2
            }
        }
    }
}

#[derive(Debug, Clone, Copy)]
enum Role {
    Increasing,
    Decreasing,
    Plane,
}

fn class(rel: &Relation, node: NodeId, dest: NodeId, dim: usize, dir: Dir, role: Role) -> usize {
    let net = &rel.net;
    let base = base_class(dim, role);
    if net.is_torus() && rel.knobs.dateline {
        2 * base + net.dateline_class(node, dest, dim, dir)
    } else {
        base
    }
}

pub(crate) fn route(rel: &Relation, node: NodeId, dest: NodeId, out: &mut Vec<Hop>) {
    let net = &rel.net;
    let n = net.n();
    let Some(low) = net.lowest_differing_dim(node, dest) else {
        return;
    };
    // The current plane: A_low, or the last plane once only d_{n-1} is left.
    let i = low.min(n - 2);
    let first_dir = net.dor_dir(node, dest, i);
    if let Some(dir) = first_dir {
        let c = class(rel, node, dest, i, dir, Role::Plane);
        rel.push_class(out, Port::link(i, dir), c, false);
    }
    let role = match first_dir {
        Some(Dir::Minus) => Role::Decreasing,
        _ => Role::Increasing,
    };
    if let Some(dir) = net.dor_dir(node, dest, i + 1) {
        let c = class(rel, node, dest, i + 1, dir, role);
        rel.push_class(out, Port::link(i + 1, dir), c, false);
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
        assert_eq!(classes_per_dim(2, 1).into_iter().max(), Some(2));
        assert_eq!(classes_per_dim(3, 1).into_iter().max(), Some(3));
        assert_eq!(classes_per_dim(5, 1).into_iter().max(), Some(3));
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
}
