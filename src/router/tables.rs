//! The routing relation compiled into the address decoders' sign-vector
//! tables (LAPSES §5.2.1: 3^n entries indexed by the sign of each
//! dimension's remaining offset) and into the routing arbiter's candidate
//! slots.
//!
//! The relation ([`Relation::route`]) is the single source of truth. A
//! sign-vector table can only encode it where its answer depends on the
//! sign vector alone: [`compile`] asks the relation at every node, for every
//! destination and every input the message can arrive on, and refuses the
//! configuration (naming where) when two questions with the same table
//! entry get different answers.

use crate::algo::tables::{sign_index, sign_vector, signs_text};
use crate::algo::{Input, Port, Relation};
use crate::error::{Error, Result};

/// A relation as the router's hardware holds it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CompiledTable {
    /// Dimensions n.
    pub dims: usize,
    /// Physical ports P = 2n + 1 (0 local, 2d + 1 toward +d, 2d + 2 toward -d).
    pub ports: usize,
    /// Virtual channels per physical channel.
    pub vcs: usize,
    /// Per sign-vector entry (sum_d s_d 3^d, s = 0 zero, 1 +, 2 -): the
    /// permitted output ports, bit o for port o.
    pub masks: Vec<u32>,
    /// Per VC v, per entry: the output ports on which the relation permits
    /// VC v (one address decoder per input VC and VC v holds this table).
    pub lane_masks: Vec<Vec<u32>>,
}

/// Interface port number of a relation port (docs/interface.md).
pub fn port_number(port: Port) -> usize {
    match port {
        Port::Local => 0,
        Port::Link { dim, dir } => {
            2 * dim as usize
                + match dir {
                    crate::algo::Dir::Plus => 1,
                    crate::algo::Dir::Minus => 2,
                }
        }
    }
}

/// Every input a message can arrive on at `node`: injected, or from each
/// neighbour on each VC (travelling away from that neighbour).
fn inputs(rel: &Relation, node: u32) -> Vec<Input> {
    let mut all = vec![Input::INJECTED];
    for q in rel.net.links(node) {
        if let Port::Link { dim, dir } = q {
            for vc in 0..rel.vcs {
                all.push(Input {
                    port: Port::Link {
                        dim,
                        dir: dir.reverse(),
                    },
                    vc,
                });
            }
        }
    }
    all
}

/// A relation's (port, VC) answer and where it was first given.
type Answer = (Vec<(usize, u8)>, String);

/// Compiles `rel` for a router with relative addressing, or explains why a
/// sign-vector table cannot hold it.
pub fn compile(rel: &Relation) -> Result<CompiledTable> {
    let net = &rel.net;
    let n = net.n();
    let ports = 2 * n + 1;
    let entries = 3usize.pow(n as u32);
    // Per entry: the sorted (port, vc) set first seen, and where.
    let mut seen: Vec<Option<Answer>> = vec![None; entries];
    let mut buf = Vec::new();
    for node in 0..net.nodes() {
        let ins = inputs(rel, node);
        for dest in 0..net.nodes() {
            let signs = sign_vector(net, node, dest);
            let e = sign_index(&signs);
            for input in &ins {
                rel.route(node, *input, dest, &mut buf);
                let mut hops: Vec<(usize, u8)> =
                    buf.iter().map(|h| (port_number(h.port), h.vc)).collect();
                hops.sort_unstable();
                hops.dedup();
                let here = format!(
                    "at {} for {} arriving on {} vc{}",
                    net.node_name(node),
                    net.node_name(dest),
                    input.port,
                    input.vc
                );
                match &seen[e] {
                    None => seen[e] = Some((hops.clone(), here.clone())),
                    Some((first, where_)) if *first != hops => {
                        return Err(Error::invalid(format!(
                            "{}: the permitted outputs for sign vector {} differ ({} and {}), \
                             so a sign-vector table cannot hold the relation; not supported yet",
                            rel.name(),
                            signs_text(&signs),
                            where_,
                            here
                        )));
                    }
                    Some(_) => {}
                }
                let mut ports_here: Vec<usize> = hops.iter().map(|h| h.0).collect();
                ports_here.dedup();
                // The arbiter's candidate slots hold one port per dimension.
                for d in 0..n {
                    let in_dim = ports_here
                        .iter()
                        .filter(|&&o| o == 2 * d + 1 || o == 2 * d + 2)
                        .count();
                    if in_dim > 1 {
                        return Err(Error::invalid(format!(
                            "{}: both directions of one dimension are permitted {here}; \
                             not supported yet",
                            rel.name()
                        )));
                    }
                }
                if ports_here.contains(&0) && ports_here.len() > 1 {
                    return Err(Error::invalid(format!(
                        "{}: the local port and a link are both permitted {here}; \
                         not supported yet",
                        rel.name()
                    )));
                }
            }
        }
    }
    let mask = |lane: Option<u8>| -> Vec<u32> {
        seen.iter()
            .map(|s| {
                s.as_ref()
                    .map(|(hops, _)| {
                        hops.iter()
                            .filter(|h| match lane {
                                None => true,
                                Some(l) => h.1 == l,
                            })
                            .fold(0u32, |m, h| m | 1 << h.0)
                    })
                    .unwrap_or(0)
            })
            .collect()
    };
    Ok(CompiledTable {
        dims: n,
        ports,
        vcs: rel.vcs as usize,
        masks: mask(None),
        lane_masks: (0..rel.vcs).map(|l| mask(Some(l))).collect(),
    })
}

impl CompiledTable {
    /// Candidate slots per input VC: slot j = d * V + v offers VC v of the
    /// port of dimension d that VC v's decoder names (the local port in
    /// slot d = 0), so slots come in dimension order (STATIC-XY preference).
    pub fn freedom(&self) -> usize {
        self.dims * self.vcs
    }

    /// Whether slot `j` can offer output port `o`.
    pub fn slot_port(&self, j: usize, o: usize) -> bool {
        let d = j / self.vcs;
        o == 2 * d + 1 || o == 2 * d + 2 || (d == 0 && o == 0)
    }

    /// The VC whose decoder fills slot `j`.
    pub fn slot_lane(&self, j: usize) -> usize {
        j % self.vcs
    }

    /// The output VC (o * V + v) of slot `j` for port `o`.
    pub fn slot_output_vc(&self, j: usize, o: usize) -> usize {
        o * self.vcs + self.slot_lane(j)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::algo::Network;
    use crate::spec::{Algorithm, Topology};

    #[test]
    fn dimension_order_on_a_mesh_is_x_then_y_on_every_vc() {
        let net = Network::new(Topology::Mesh, 2, 4).unwrap();
        let rel = Relation::new(Algorithm::DimensionOrder, net, 2).unwrap();
        let t = compile(&rel).unwrap();
        // Written by hand: entry = s_x + 3 s_y (0 zero, 1 +, 2 -).
        let expect = [
            1 << 0, // (0,0) local
            1 << 1, // (+,0) +x
            1 << 2, // (-,0) -x
            1 << 3, // (0,+) +y
            1 << 1, // (+,+) +x
            1 << 2, // (-,+) -x
            1 << 4, // (0,-) -y
            1 << 1, // (+,-) +x
            1 << 2, // (-,-) -x
        ];
        assert_eq!(t.masks, expect);
        // Both VCs on every link; the local port on VC 0 only.
        assert_eq!(t.lane_masks[0], expect);
        let mut lane1 = expect;
        lane1[0] = 0;
        assert_eq!(t.lane_masks[1], lane1);
        assert_eq!(t.freedom(), 4);
        assert!(t.slot_port(0, 0) && t.slot_port(1, 0) && !t.slot_port(2, 0));
        assert!(t.slot_port(3, 4) && !t.slot_port(3, 1));
        assert_eq!(t.slot_output_vc(3, 4), 9);
    }

    #[test]
    fn a_relation_that_depends_on_more_than_signs_is_refused() {
        // Minimal routing on a torus depends on the offset's size.
        let net = Network::new(Topology::Torus, 2, 5).unwrap();
        let rel = Relation::new(Algorithm::DimensionOrder, net, 2).unwrap();
        let err = compile(&rel).unwrap_err().to_string();
        assert!(err.contains("not supported yet"), "{err}");
    }
}
