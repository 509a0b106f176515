//! Routing-table contents compiled from a relation (LAPSES §5).
//!
//! - Economical storage (LAPSES §5.2.1): 3^n entries per router, indexed by
//!   the sign of (destination - node id) in each dimension, each entry the
//!   set of permitted outputs. It encodes the relation only if the
//!   relation's answer depends on the sign vector alone (and not on the input
//!   channel); [`economical`] checks that and lists where it does not (on a
//!   torus the minimal direction depends on the size of the offset, not only
//!   its sign).
//! - Full table (LAPSES §5, Table 5): one entry per destination node.
//! - Two-level meta table (LAPSES §5.1.1, §5.2.2): the node id is split into
//!   a cluster id and a sub-cluster id (here: the coordinates of the upper
//!   and lower halves of the dimensions); destinations in
//!   the router's own cluster have one entry each, every other cluster one
//!   entry shared by all its nodes, which can only hold the outputs permitted
//!   for every node of that cluster (their intersection). In 2-D the clusters
//!   are rows, LAPSES Figure 8(a). Size m * 2^(N/m) for m = 2 and a
//!   2^N-node network with N even (Table 5).
//!
//! Entry digit for dimension d: 0 for sign 0, 1 for +, 2 for -; entry index
//! = sum(digit_d * 3^d).

use std::fmt::Write as _;

use super::{Hop, Input, Network, NodeId, Port, Relation};

/// Sign of `dest - node` in each dimension: -1, 0 or 1.
pub fn sign_vector(net: &Network, node: NodeId, dest: NodeId) -> Vec<i8> {
    (0..net.n())
        .map(|d| {
            let (a, b) = (net.coord(node, d), net.coord(dest, d));
            match b.cmp(&a) {
                std::cmp::Ordering::Greater => 1,
                std::cmp::Ordering::Less => -1,
                std::cmp::Ordering::Equal => 0,
            }
        })
        .collect()
}

/// Entry index of a sign vector.
pub fn sign_index(signs: &[i8]) -> usize {
    signs.iter().rev().fold(0, |acc, &s| {
        acc * 3
            + match s {
                0 => 0,
                1 => 1,
                _ => 2,
            }
    })
}

/// Sign vector of entry `index` for `n` dimensions.
pub fn signs_of(index: usize, n: usize) -> Vec<i8> {
    let mut i = index;
    (0..n)
        .map(|_| {
            let s = match i % 3 {
                0 => 0,
                1 => 1,
                _ => -1,
            };
            i /= 3;
            s
        })
        .collect()
}

/// `(+,0)`.
pub fn signs_text(signs: &[i8]) -> String {
    let parts: Vec<&str> = signs
        .iter()
        .map(|&s| match s {
            1 => "+",
            -1 => "-",
            _ => "0",
        })
        .collect();
    format!("({})", parts.join(","))
}

/// The permitted outputs for `dest` at `node` for a message just injected,
/// sorted; and whether any arriving input changes them.
fn outputs(rel: &Relation, node: NodeId, dest: NodeId, buf: &mut Vec<Hop>) -> (Vec<Hop>, bool) {
    rel.route(node, Input::INJECTED, dest, buf);
    let mut base = buf.clone();
    base.sort();
    let mut input_dependent = false;
    for q in rel.net.links(node) {
        let Port::Link { dim, dir } = q else { continue };
        let travelling = Port::Link {
            dim,
            dir: dir.reverse(),
        };
        for vc in 0..rel.vcs {
            rel.route(
                node,
                Input {
                    port: travelling,
                    vc,
                },
                dest,
                buf,
            );
            buf.sort();
            if *buf != base {
                input_dependent = true;
            }
        }
    }
    (base, input_dependent)
}

/// Outputs as `+x vc0*, -y vc1` (* marks escape channels).
pub fn hops_text(hops: &[Hop]) -> String {
    if hops.is_empty() {
        return "none".into();
    }
    let parts: Vec<String> = hops
        .iter()
        .map(|h| match h.port {
            Port::Local => "local".to_string(),
            p => format!("{p} vc{}{}", h.vc, if h.escape { "*" } else { "" }),
        })
        .collect();
    parts.join(", ")
}

/// The distinct ports of a hop set, in order.
pub fn ports_of(hops: &[Hop]) -> Vec<Port> {
    let mut p: Vec<Port> = hops.iter().map(|h| h.port).collect();
    p.sort();
    p.dedup();
    p
}

/// A router's economical-storage table.
#[derive(Debug, Clone)]
pub struct EconomicalTable {
    pub node: NodeId,
    /// `3^n` entries; `None` where no destination has that sign vector.
    pub entries: Vec<Option<Vec<Hop>>>,
    /// Where the relation is not a function of the sign vector alone.
    pub conflicts: Vec<String>,
}

impl EconomicalTable {
    pub fn well_defined(&self) -> bool {
        self.conflicts.is_empty()
    }

    pub fn to_text(&self, net: &Network) -> String {
        let mut s = String::new();
        let _ = writeln!(
            s,
            "economical-storage table at {} ({} entries, LAPSES §5.2.1; * = escape channel):",
            net.node_name(self.node),
            self.entries.len()
        );
        for (i, e) in self.entries.iter().enumerate() {
            let signs = signs_text(&signs_of(i, net.n()));
            let body = match e {
                None => "(no destination)".to_string(),
                Some(h) => hops_text(h),
            };
            let _ = writeln!(s, "  {signs:<width$}  {body}", width = 2 * net.n() + 1);
        }
        for c in self.conflicts.iter().take(5) {
            let _ = writeln!(s, "  not well-defined: {c}");
        }
        if self.conflicts.len() > 5 {
            let _ = writeln!(s, "  ... and {} more", self.conflicts.len() - 5);
        }
        s
    }
}

/// The economical-storage table of `node`.
pub fn economical(rel: &Relation, node: NodeId) -> EconomicalTable {
    let net = rel.net;
    let size = 3usize.pow(net.dims);
    let mut entries: Vec<Option<Vec<Hop>>> = vec![None; size];
    let mut witness: Vec<NodeId> = vec![0; size];
    let mut conflicts = Vec::new();
    let mut buf = Vec::new();
    for dest in 0..net.nodes() {
        let signs = sign_vector(&net, node, dest);
        let i = sign_index(&signs);
        let (hops, input_dependent) = outputs(rel, node, dest, &mut buf);
        if input_dependent {
            conflicts.push(format!(
                "toward {} the outputs depend on the input channel",
                net.node_name(dest)
            ));
        }
        match &entries[i] {
            None => {
                entries[i] = Some(hops);
                witness[i] = dest;
            }
            Some(prev) if *prev != hops => conflicts.push(format!(
                "sign vector {} at {}: toward {} {}, toward {} {}",
                signs_text(&signs),
                net.node_name(node),
                net.node_name(witness[i]),
                hops_text(prev),
                net.node_name(dest),
                hops_text(&hops)
            )),
            Some(_) => {}
        }
    }
    EconomicalTable {
        node,
        entries,
        conflicts,
    }
}

/// A router's full table: the outputs for every destination.
pub fn full(rel: &Relation, node: NodeId) -> Vec<Vec<Hop>> {
    let mut buf = Vec::new();
    (0..rel.net.nodes())
        .map(|dest| outputs(rel, node, dest, &mut buf).0)
        .collect()
}

/// A router's full table as text, one line per destination.
pub fn full_text(rel: &Relation, node: NodeId) -> String {
    let net = rel.net;
    let mut s = String::new();
    let table = full(rel, node);
    let _ = writeln!(
        s,
        "full table at {} ({} entries, LAPSES §5; * = escape channel):",
        net.node_name(node),
        table.len()
    );
    for (dest, hops) in table.iter().enumerate() {
        let _ = writeln!(
            s,
            "  {:>5} {}: {}",
            dest,
            net.node_name(dest as NodeId),
            hops_text(hops)
        );
    }
    s
}

/// A router's two-level meta table.
#[derive(Debug, Clone)]
pub struct MetaTable {
    pub node: NodeId,
    /// Nodes per cluster (node id = cluster * per_cluster + sub-cluster id).
    pub per_cluster: u32,
    /// One entry per node of the router's own cluster.
    pub sub_cluster: Vec<Vec<Hop>>,
    /// One entry per cluster: the outputs permitted for all its nodes (the
    /// router's own cluster's slot is unused and left empty).
    pub cluster: Vec<Vec<Hop>>,
    /// Destinations for which the cluster entry offers fewer outputs than
    /// the relation permits.
    pub narrowed: usize,
    /// Destinations for which the cluster entry offers nothing.
    pub unroutable: usize,
    /// Destinations for which the relation offers an escape channel but the
    /// cluster entry keeps none (Duato's proof no longer covers them).
    pub escape_lost: usize,
}

/// Dimensions that form the sub-cluster id of a 2-level split: the lower
/// ceil(n/2), so a 2-D network's clusters are its rows (LAPSES Figure 8a)
/// and a k^n network's table has about 2 * sqrt(k^n) entries (Table 5).
pub fn meta_sub_dims(net: &Network) -> u32 {
    net.dims.div_ceil(2)
}

/// The meta table of `node`.
pub fn meta(rel: &Relation, node: NodeId) -> MetaTable {
    let net = rel.net;
    let per = net.radix.pow(meta_sub_dims(&net));
    let clusters = net.nodes() / per;
    let own = node / per;
    let table = full(rel, node);
    let mut sub_cluster = vec![Vec::new(); per as usize];
    let mut cluster = vec![Vec::new(); clusters as usize];
    let (mut narrowed, mut unroutable, mut escape_lost) = (0, 0, 0);
    for c in 0..clusters {
        let members: Vec<NodeId> = (c * per..(c + 1) * per).collect();
        if c == own {
            for &m in &members {
                sub_cluster[(m % per) as usize] = table[m as usize].clone();
            }
            continue;
        }
        let mut common: Vec<Hop> = table[members[0] as usize].clone();
        for &m in &members[1..] {
            common.retain(|h| table[m as usize].contains(h));
        }
        let common_escape = common.iter().any(|h| h.escape);
        for &m in &members {
            if common.is_empty() {
                unroutable += 1;
            } else if common.len() < table[m as usize].len() {
                narrowed += 1;
            }
            if !common_escape && table[m as usize].iter().any(|h| h.escape) {
                escape_lost += 1;
            }
        }
        cluster[c as usize] = common;
    }
    MetaTable {
        node,
        per_cluster: per,
        sub_cluster,
        cluster,
        narrowed,
        unroutable,
        escape_lost,
    }
}

impl MetaTable {
    pub fn to_text(&self, net: &Network) -> String {
        let mut s = String::new();
        let _ = writeln!(
            s,
            "meta table at {} ({} sub-cluster + {} cluster entries, LAPSES §5.1.1):",
            net.node_name(self.node),
            self.sub_cluster.len(),
            self.cluster.len()
        );
        for (i, h) in self.sub_cluster.iter().enumerate() {
            let id = (self.node / self.per_cluster) * self.per_cluster + i as u32;
            let _ = writeln!(
                s,
                "  sub-cluster {i:>3} {}: {}",
                net.node_name(id),
                hops_text(h)
            );
        }
        let own = self.node / self.per_cluster;
        for (c, h) in self.cluster.iter().enumerate() {
            if c as u32 != own {
                let _ = writeln!(s, "  cluster {c:>3}: {}", hops_text(h));
            }
        }
        s
    }
}

/// Table sizes for the whole network, and how faithfully each encodes the
/// relation (LAPSES Table 5).
#[derive(Debug, Clone, serde::Serialize)]
pub struct Sizes {
    pub economical: usize,
    /// First place where the economical table is not well-defined.
    pub economical_conflict: Option<String>,
    pub full: usize,
    pub meta_sub: usize,
    pub meta_clusters: usize,
    /// Router/destination pairs whose meta cluster entry loses outputs.
    pub meta_narrowed: usize,
    /// Router/destination pairs the meta table cannot route at all.
    pub meta_unroutable: usize,
    /// Router/destination pairs whose cluster entry drops every escape
    /// channel the relation offers.
    pub meta_escape_lost: usize,
    pub pairs: usize,
}

impl Sizes {
    pub fn to_text(&self) -> String {
        let es = match &self.economical_conflict {
            None => "well-defined at every router".to_string(),
            Some(c) => format!("NOT well-defined: {c}"),
        };
        let escape = if self.meta_escape_lost > 0 {
            format!(
                ", and drop every escape channel for {}",
                self.meta_escape_lost
            )
        } else {
            String::new()
        };
        format!(
            "routing tables per router (LAPSES §5, Table 5): economical storage {} entries ({es}); full table {} entries; 2-level meta table {} + {} = {} entries (cluster entries narrow the outputs for {} and lose all of them for {}{escape} of {} router/destination pairs)",
            self.economical,
            self.full,
            self.meta_sub,
            self.meta_clusters,
            self.meta_sub + self.meta_clusters,
            self.meta_narrowed,
            self.meta_unroutable,
            self.pairs
        )
    }
}

pub fn sizes(rel: &Relation) -> Sizes {
    let net = rel.net;
    let mut conflict = None;
    let (mut narrowed, mut unroutable, mut escape_lost) = (0, 0, 0);
    let mut meta_sub = 0;
    let mut meta_clusters = 0;
    for node in 0..net.nodes() {
        if conflict.is_none() {
            conflict = economical(rel, node).conflicts.into_iter().next();
        }
        let m = meta(rel, node);
        narrowed += m.narrowed;
        unroutable += m.unroutable;
        escape_lost += m.escape_lost;
        meta_sub = m.sub_cluster.len();
        meta_clusters = m.cluster.len();
    }
    let nodes = net.nodes() as usize;
    Sizes {
        economical: 3usize.pow(net.dims),
        economical_conflict: conflict,
        full: nodes,
        meta_sub,
        meta_clusters,
        meta_narrowed: narrowed,
        meta_unroutable: unroutable,
        meta_escape_lost: escape_lost,
        pairs: nodes * (nodes - 1),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sign_index_round_trips() {
        for n in 1..=4 {
            for i in 0..3usize.pow(n as u32) {
                assert_eq!(sign_index(&signs_of(i, n)), i);
            }
        }
    }

    #[test]
    fn meta_size_follows_table_5() {
        // LAPSES Table 5: m * 2^(N/m) for m = 2; 256 nodes = 2^8: 32 entries.
        let net = Network::new(crate::spec::Topology::Mesh, 2, 16).unwrap();
        let rel = Relation::new(crate::spec::Algorithm::NorthLast, net, 1).unwrap();
        let m = meta(&rel, 0);
        assert_eq!(m.sub_cluster.len() + m.cluster.len(), 2 * (1 << (8 / 2)));
    }
}
