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
//!   a cluster id and a sub-cluster id (the coordinates of the upper and
//!   lower halves of the dimensions, or of the lower and upper: [`MetaSplit`];
//!   one split, [`meta_split`], serves the router, its report and `routergen
//!   check --node`); destinations in
//!   the router's own cluster have one entry each, every other cluster one
//!   entry shared by all its nodes, which can only hold the outputs permitted
//!   for every node of that cluster (their intersection). In 2-D the clusters
//!   are rows or columns (LAPSES Figure 8(a)), or squares (Figure 8(b)). Size m * 2^(N/m) for m = 2 and a
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

/// Entry index of a sign vector ([`super::numbering::es_entry`]: digit
/// 0 for sign 0, 1 for +, 2 for -).
pub fn sign_index(signs: &[i8]) -> usize {
    super::numbering::es_entry(signs.iter().map(|&s| match s {
        0 => 0,
        1 => 1,
        _ => 2,
    }))
}

/// Sign vector of entry `index` for `n` dimensions
/// ([`super::numbering::es_digits`]).
pub fn signs_of(index: usize, n: usize) -> Vec<i8> {
    super::numbering::es_digits(index, n)
        .into_iter()
        .map(|d| match d {
            0 => 0,
            1 => 1,
            _ => -1,
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
    if !rel.reads_input() {
        return (base, false);
    }
    for input in super::numbering::arrival_inputs(rel, node)
        .into_iter()
        .skip(1)
    {
        rel.route(node, input, dest, buf);
        buf.sort();
        if *buf != base {
            input_dependent = true;
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
    /// The router the table belongs to.
    pub node: NodeId,
    /// `3^n` entries; `None` where no destination has that sign vector.
    pub entries: Vec<Option<Vec<Hop>>>,
    /// Where the relation is not a function of the sign vector alone.
    pub conflicts: Vec<String>,
}

impl EconomicalTable {
    /// Whether every entry holds for every destination it serves: no conflicts.
    pub fn well_defined(&self) -> bool {
        self.conflicts.is_empty()
    }

    /// The table as `routergen check --node` prints it, one entry per sign vector.
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

/// How a two-level meta table splits the node id (LAPSES §5.1.1). Whole
/// dimensions (`square` = `None`): the coordinates of the dimensions `sub`
/// form the sub-cluster id, those of the other dimensions (one contiguous
/// range) the cluster id; in 2-D each cluster is a row or a column
/// (Figure 8(a)). Squares (`square` = `Some(b)`, k = b^2): every
/// coordinate is split, x div b into the cluster id and x mod b into the
/// sub-cluster id, so each cluster is a b x ... x b block of the mesh
/// (Figure 8(b): 4x4 clusters of a 16x16 mesh).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MetaSplit {
    /// Dimensions of the sub-cluster id (all of them for squares).
    pub sub: std::ops::Range<usize>,
    /// Dimensions of the network.
    pub dims: usize,
    /// Side b of a square cluster, or `None` when clusters are whole
    /// dimensions.
    pub square: Option<u32>,
}

impl MetaSplit {
    /// The splits tried, in order: the cluster id in the upper dimensions
    /// (the lower ceil(n/2) form the sub-cluster id: in 2-D the clusters
    /// are rows, LAPSES Figure 8a; about 2 sqrt(k^n) entries, Table 5),
    /// then in the lower ones (2-D: columns, Figure 8(a) turned; dimension order
    /// resolves them first, so its cluster entries keep its hop).
    pub fn candidates(dims: usize) -> Vec<MetaSplit> {
        let mut all = vec![
            MetaSplit {
                sub: 0..dims.div_ceil(2),
                dims,
                square: None,
            },
            MetaSplit {
                sub: dims / 2..dims,
                dims,
                square: None,
            },
        ];
        all.dedup();
        all
    }

    /// Square clusters of side `side` over `dims` dimensions (LAPSES
    /// Figure 8(b)); the radix must be `side` squared.
    pub fn squares(dims: usize, side: u32) -> MetaSplit {
        MetaSplit {
            sub: 0..dims,
            dims,
            square: Some(side),
        }
    }

    /// Dimensions of the cluster id (all of them for squares).
    pub fn cluster_dims(&self) -> std::ops::Range<usize> {
        if self.square.is_some() {
            0..self.dims
        } else if self.sub.start == 0 {
            self.sub.end..self.dims
        } else {
            0..self.sub.start
        }
    }

    /// Index of `node`'s coordinates over `dims`, the lowest dimension
    /// varying fastest.
    fn index_over(net: &Network, node: NodeId, dims: std::ops::Range<usize>) -> usize {
        dims.rev().fold(0, |acc, d| {
            acc * net.radix as usize + net.coord(node, d) as usize
        })
    }

    /// Index of `digit(coordinate)` over every dimension, base `b`, the
    /// lowest dimension varying fastest.
    fn index_of_digits(net: &Network, node: NodeId, b: u32, digit: impl Fn(u32) -> u32) -> usize {
        (0..net.n()).rev().fold(0, |acc, d| {
            acc * b as usize + digit(net.coord(node, d)) as usize
        })
    }

    /// The cluster `node` belongs to.
    pub fn cluster_of(&self, net: &Network, node: NodeId) -> usize {
        match self.square {
            Some(b) => Self::index_of_digits(net, node, b, |x| x / b),
            None => Self::index_over(net, node, self.cluster_dims()),
        }
    }

    /// `node`'s index within its cluster.
    pub fn sub_of(&self, net: &Network, node: NodeId) -> usize {
        match self.square {
            Some(b) => Self::index_of_digits(net, node, b, |x| x % b),
            None => Self::index_over(net, node, self.sub.clone()),
        }
    }

    /// Values one coordinate of a sub-cluster id takes: b for squares, k
    /// otherwise.
    fn sub_base(&self, net: &Network) -> usize {
        self.square.map_or(net.radix as usize, |b| b as usize)
    }

    /// Nodes per cluster: the sub-cluster entries of a table.
    pub fn per_cluster(&self, net: &Network) -> usize {
        self.sub_base(net).pow(self.sub.len() as u32)
    }

    /// Clusters: the cluster entries of a table.
    pub fn clusters(&self, net: &Network) -> usize {
        let base = match self.square {
            Some(_) => net.radix as usize / self.sub_base(net),
            None => net.radix as usize,
        };
        base.pow(self.cluster_dims().len() as u32)
    }

    /// `cluster id in dimensions 1..2`, for messages.
    pub fn describe(&self) -> String {
        match self.square {
            Some(b) => format!("square clusters of side {b}"),
            None => {
                let c = self.cluster_dims();
                format!("cluster id in dimensions {}..{}", c.start, c.end)
            }
        }
    }
}

/// A router's two-level meta table.
#[derive(Debug, Clone)]
pub struct MetaTable {
    /// The router's node.
    pub node: NodeId,
    /// How the node id is split.
    pub split: MetaSplit,
    /// One entry per node of the router's own cluster, by
    /// [`MetaSplit::sub_of`].
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

/// The meta table of `node` under `split`, from `table`, the node's full
/// table ([`full`]).
pub fn meta_with(rel: &Relation, split: &MetaSplit, node: NodeId, table: &[Vec<Hop>]) -> MetaTable {
    let net = rel.net;
    let own = split.cluster_of(&net, node);
    let mut sub_cluster = vec![Vec::new(); split.per_cluster(&net)];
    let mut members: Vec<Vec<NodeId>> = vec![Vec::new(); split.clusters(&net)];
    for m in 0..net.nodes() {
        let c = split.cluster_of(&net, m);
        if c == own {
            sub_cluster[split.sub_of(&net, m)] = table[m as usize].clone();
        } else {
            members[c].push(m);
        }
    }
    let mut cluster = vec![Vec::new(); members.len()];
    let (mut narrowed, mut unroutable, mut escape_lost) = (0, 0, 0);
    for (c, members) in members.iter().enumerate() {
        let Some((&first, rest)) = members.split_first() else {
            continue;
        };
        let mut common: Vec<Hop> = table[first as usize].clone();
        for &m in rest {
            common.retain(|h| table[m as usize].contains(h));
        }
        let common_escape = common.iter().any(|h| h.escape);
        for &m in members {
            if common.is_empty() {
                unroutable += 1;
            } else if common.len() < table[m as usize].len() {
                narrowed += 1;
            }
            if !common_escape && table[m as usize].iter().any(|h| h.escape) {
                escape_lost += 1;
            }
        }
        cluster[c] = common;
    }
    MetaTable {
        node,
        split: split.clone(),
        sub_cluster,
        cluster,
        narrowed,
        unroutable,
        escape_lost,
    }
}

/// The split of the node id a meta table of `rel` uses: the first of
/// [`MetaSplit::candidates`] whose restricted relation (each cluster
/// entry keeps only the outputs permitted toward every node of its
/// cluster) the deadlock checker proves ([`super::check::check_table`]: a
/// hop toward every destination, an escape hop where the relation has
/// escape channels, no dependency cycle). `Err` gives, per candidate, why
/// it fails. The router's meta table, its report and `routergen check
/// --node` all take the split from here.
pub fn meta_split(rel: &Relation) -> Result<MetaSplit, String> {
    meta_split_among(rel, &MetaSplit::candidates(rel.net.n()))
}

/// [`meta_split`] among `candidates`, e.g. the square clusters of
/// Figure 8(b) alone ([`MetaSplit::squares`]).
pub fn meta_split_among(rel: &Relation, candidates: &[MetaSplit]) -> Result<MetaSplit, String> {
    let fulls: Vec<Vec<Vec<Hop>>> = (0..rel.net.nodes()).map(|x| full(rel, x)).collect();
    meta_split_of(rel, &fulls, candidates)
}

/// [`meta_split_among`] given every node's full table.
fn meta_split_of(
    rel: &Relation,
    fulls: &[Vec<Vec<Hop>>],
    candidates: &[MetaSplit],
) -> Result<MetaSplit, String> {
    use super::check::TableEscape;
    let net = rel.net;
    let restrict = |split: &MetaSplit| -> Vec<Vec<Vec<Hop>>> {
        (0..net.nodes())
            .map(|x| {
                let m = meta_with(rel, split, x, &fulls[x as usize]);
                let own = split.cluster_of(&net, x);
                (0..net.nodes())
                    .map(|d| {
                        let c = split.cluster_of(&net, d);
                        if c == own {
                            m.sub_cluster[split.sub_of(&net, d)].clone()
                        } else {
                            m.cluster[c].clone()
                        }
                    })
                    .collect()
            })
            .collect()
    };
    let mut why = Vec::new();
    // A split whose entries keep the relation's escape channels first;
    // then one proved with the kept hops as the escape where an entry
    // lost it (square clusters always lose it toward the clusters in line
    // with the router's).
    for escape in [TableEscape::Relation, TableEscape::KeptWhereLost] {
        if escape == TableEscape::KeptWhereLost && !rel.has_escape() {
            break;
        }
        for split in candidates {
            match super::check::check_table_as(rel, &restrict(split), escape) {
                Ok(()) => return Ok(split.clone()),
                Err(e) => why.push(match escape {
                    TableEscape::Relation => format!("with the {}: {e}", split.describe()),
                    TableEscape::KeptWhereLost => format!(
                        "with the {} and its kept hops as the escape where it lost it: {e}",
                        split.describe()
                    ),
                }),
            }
        }
    }
    why.dedup();
    Err(why.join("; "))
}

/// The meta table of `node`, under the split [`meta_split`] chooses (the
/// first candidate when none is proved).
pub fn meta(rel: &Relation, node: NodeId) -> MetaTable {
    let split = meta_split(rel).unwrap_or_else(|_| MetaSplit::candidates(rel.net.n()).remove(0));
    meta_with(rel, &split, node, &full(rel, node))
}

impl MetaTable {
    /// The table as text, one line per entry.
    pub fn to_text(&self, net: &Network) -> String {
        let mut s = String::new();
        let _ = writeln!(
            s,
            "meta table at {} ({} sub-cluster + {} cluster entries, {}, LAPSES §5.1.1):",
            net.node_name(self.node),
            self.sub_cluster.len(),
            self.cluster.len(),
            self.split.describe()
        );
        let own = self.split.cluster_of(net, self.node);
        let mut members: Vec<NodeId> = (0..net.nodes())
            .filter(|&m| self.split.cluster_of(net, m) == own)
            .collect();
        members.sort_by_key(|&m| self.split.sub_of(net, m));
        for (i, h) in self.sub_cluster.iter().enumerate() {
            let _ = writeln!(
                s,
                "  sub-cluster {i:>3} {}: {}",
                net.node_name(members[i]),
                hops_text(h)
            );
        }
        for (c, h) in self.cluster.iter().enumerate() {
            if c != own {
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
    /// Entries of the economical-storage table, 3^n.
    pub economical: usize,
    /// First place where the economical table is not well-defined.
    pub economical_conflict: Option<String>,
    /// Entries of the full table, one per node.
    pub full: usize,
    /// The meta table's split of the node id ([`meta_split`]).
    pub meta_split: String,
    /// Why no split of the node id gives a meta table the deadlock checker
    /// proves (`None` when [`Sizes::meta_split`] is proved).
    pub meta_refused: Option<String>,
    /// Sub-cluster entries of the meta table.
    pub meta_sub: usize,
    /// Cluster entries of the meta table.
    pub meta_clusters: usize,
    /// Router/destination pairs whose meta cluster entry loses outputs.
    pub meta_narrowed: usize,
    /// Router/destination pairs the meta table cannot route at all.
    pub meta_unroutable: usize,
    /// Router/destination pairs whose cluster entry drops every escape
    /// channel the relation offers.
    pub meta_escape_lost: usize,
    /// Router/destination pairs, N (N - 1).
    pub pairs: usize,
}

impl Sizes {
    /// One paragraph for reports.
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
        let verdict = match &self.meta_refused {
            None => "proved deadlock-free with the deadlock checker".to_string(),
            Some(why) => format!(
                "no split of the node id gives a table the deadlock checker proves, so \
                 no router holds one ({why})"
            ),
        };
        format!(
            "routing tables per router (LAPSES §5, Table 5): economical storage {} entries ({es}); full table {} entries; 2-level meta table {} + {} = {} entries (with the {}, cluster entries narrow the outputs for {} and lose all of them for {}{escape} of {} router/destination pairs; {verdict})",
            self.economical,
            self.full,
            self.meta_sub,
            self.meta_clusters,
            self.meta_sub + self.meta_clusters,
            self.meta_split,
            self.meta_narrowed,
            self.meta_unroutable,
            self.pairs
        )
    }
}

/// The routing tables of `rel` over its whole network: their sizes, where
/// the economical table is not well-defined, and how the meta table under
/// its split ([`meta_split`]) narrows the relation.
pub fn sizes(rel: &Relation) -> Sizes {
    let net = rel.net;
    let mut conflict = None;
    let (mut narrowed, mut unroutable, mut escape_lost) = (0, 0, 0);
    let fulls: Vec<Vec<Vec<Hop>>> = (0..net.nodes()).map(|x| full(rel, x)).collect();
    let (split, refused) = match meta_split_of(rel, &fulls, &MetaSplit::candidates(net.n())) {
        Ok(split) => (split, None),
        Err(why) => (MetaSplit::candidates(net.n()).remove(0), Some(why)),
    };
    for node in 0..net.nodes() {
        if conflict.is_none() {
            conflict = economical(rel, node).conflicts.into_iter().next();
        }
        let m = meta_with(rel, &split, node, &fulls[node as usize]);
        narrowed += m.narrowed;
        unroutable += m.unroutable;
        escape_lost += m.escape_lost;
    }
    let nodes = net.nodes() as usize;
    Sizes {
        economical: 3usize.pow(net.dims),
        economical_conflict: conflict,
        full: nodes,
        meta_split: split.describe(),
        meta_refused: refused,
        meta_sub: split.per_cluster(&net),
        meta_clusters: split.clusters(&net),
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
