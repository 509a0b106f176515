//! The deadlock checker: proves a [`Relation`] on a concrete network.
//!
//! For every destination x it explores every state a message bound for x can
//! be in (the channel it last took), from injection at every other node, and
//! from that builds:
//!
//! - connectivity: every reachable state offers a hop and can still reach x
//!   (survey §4.2, Definition 4), so every source reaches every destination;
//! - minimality, where the paper claims it: every permitted hop brings the
//!   message one hop closer (survey §4.1);
//! - the channel dependency graph (survey §4.2, Definition 8): an arc c_i ->
//!   c_j when a message for some x can take c_j right after c_i. Acyclic means
//!   deadlock-free (Dally and Seitz, Theorem 1; necessary too for a
//!   deterministic relation);
//! - for relations with an escape sub-function R_1, Duato's extended channel
//!   dependency graph (Definition 9): over the escape channels C_1, an arc
//!   c_i -> c_j when a message for some x that used c_i can reach c_j, supplied
//!   by R_1 for x, directly (direct and direct cross dependencies) or through
//!   channels not supplied by R_1 for x (indirect and indirect cross
//!   dependencies). We let any channel not supplied by R_1 for x be an
//!   intermediate one, a superset of Definition 7's arcs, so an acyclic graph
//!   here proves Duato's condition (Theorem 2); R_1 must also be connected,
//!   which we check as "every reachable state is offered an escape hop" plus
//!   minimality of the escape hops.
//!
//! Nothing here recurses: graph searches are iterative, so 16x16 networks
//! cannot overflow the stack.

use std::fmt::Write as _;

use super::{tables, Channel, Hop, Input, Network, NodeId, Port, Relation};
use crate::spec::Topology;

/// Dense channel numbering: `((node * ports) + port_index) * vcs + vc`.
#[derive(Debug, Clone, Copy)]
pub struct ChannelIndex {
    net: Network,
    ports: usize,
    vcs: usize,
}

impl ChannelIndex {
    /// The index of `net` with `vcs` virtual channels per physical channel.
    pub fn new(net: Network, vcs: u8) -> ChannelIndex {
        ChannelIndex {
            net,
            ports: net.port_count(),
            vcs: vcs as usize,
        }
    }

    /// Size of the index space (including unused slots for the local port
    /// and absent mesh links).
    pub fn len(&self) -> usize {
        self.net.nodes() as usize * self.ports * self.vcs
    }

    /// Whether the index space is empty (never for a network with a link).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The dense id of channel `c`.
    pub fn id(&self, c: Channel) -> usize {
        (c.node as usize * self.ports + self.net.port_index(c.port)) * self.vcs + c.vc as usize
    }

    /// The channel with dense id `id`, the inverse of [`ChannelIndex::id`].
    pub fn channel(&self, id: usize) -> Channel {
        let vc = (id % self.vcs) as u8;
        let p = (id / self.vcs) % self.ports;
        let node = (id / self.vcs / self.ports) as NodeId;
        let port = super::numbering::port_at(&self.net, node, p);
        Channel { node, port, vc }
    }

    /// All physical-link channels that exist.
    pub fn all(&self) -> Vec<Channel> {
        let mut out = Vec::new();
        for node in 0..self.net.nodes() {
            for port in self.net.links(node) {
                for vc in 0..self.vcs as u8 {
                    out.push(Channel { node, port, vc });
                }
            }
        }
        out
    }
}

/// `(1,0)+x vc0`.
pub fn channel_name(net: &Network, c: Channel) -> String {
    format!("{}{} vc{}", net.node_name(c.node), c.port, c.vc)
}

/// A cycle as `a -> b -> c -> a`.
pub fn cycle_text(net: &Network, cycle: &[Channel]) -> String {
    let mut parts: Vec<String> = cycle.iter().map(|&c| channel_name(net, c)).collect();
    if let Some(&first) = cycle.first() {
        parts.push(channel_name(net, first));
    }
    parts.join(" -> ")
}

/// One directed graph's summary: size and, if it has one, a cycle.
#[derive(Debug, Clone)]
pub struct GraphResult {
    /// Vertices: channels.
    pub vertices: usize,
    /// Arcs: channel dependencies.
    pub arcs: usize,
    /// A dependency cycle, if the graph has one.
    pub cycle: Option<Vec<Channel>>,
}

/// What the checker found.
#[derive(Debug, Clone)]
pub struct Report {
    /// The network checked.
    pub net: Network,
    /// The relation's name ([`Relation::name`]).
    pub relation: String,
    /// Virtual channels per physical channel.
    pub vcs: u8,
    /// Virtual channels per physical channel the relation's classes need
    /// ([`Relation::classes_needed`]).
    pub classes_needed: usize,
    /// One path per source and destination (dimension order).
    pub deterministic: bool,
    /// Channels on existing physical links, every VC counted.
    pub channels: usize,
    /// The first illegal hop (absent link, VC out of range), if any.
    pub invalid: Option<String>,
    /// `Err` names the first source/destination pair (or state) that fails.
    pub connected: Result<usize, String>,
    /// `None` when the relation does not claim minimality.
    pub minimal: Option<Result<(), String>>,
    /// The channel dependency graph (survey §4.2, Definition 8).
    pub cdg: GraphResult,
    /// Present for relations with an escape sub-function.
    pub escape: Option<EscapeResult>,
    /// Routing-table sizes (LAPSES §5), when asked for.
    pub tables: Option<tables::Sizes>,
    /// The conclusion drawn from the findings above.
    pub verdict: Verdict,
}

#[derive(Debug, Clone)]
/// What the checker found about the escape sub-function R_1 (Duato,
/// survey §4.2 Theorem 2).
pub struct EscapeResult {
    /// Channels offered as escape hops (C_1).
    pub channels: usize,
    /// `Err` names the first state with no escape hop, or where escape hops
    /// do not lead closer to the destination.
    pub connected: Result<(), String>,
    /// `Err` when the extended graph could not be built (messages can
    /// revisit a non-escape channel).
    pub extended: Result<GraphResult, String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
/// The checker's conclusion, the first failure in the order listed.
pub enum Verdict {
    /// Deadlock-free (acyclic dependency graph, or Duato's condition),
    /// connected, and minimal where claimed.
    Proved,
    /// The relation offers a hop on a link or VC that does not exist.
    Invalid,
    /// Some source cannot reach some destination.
    NotConnected,
    /// A hop does not reduce the distance, though the relation claims minimality.
    NotMinimal,
    /// The dependency graph (or the extended graph of the escape
    /// sub-function) has a cycle: deadlock possible for a deterministic
    /// relation, not excluded for an adaptive one.
    DeadlockPossible,
}

impl Report {
    /// Whether the relation was proved deadlock-free, connected and minimal where claimed.
    pub fn proved(&self) -> bool {
        self.verdict == Verdict::Proved
    }

    /// The dependency cycle that defeats the proof, if any: the extended
    /// graph's for escape-based relations, else the plain graph's.
    pub fn cycle(&self) -> Option<&[Channel]> {
        match &self.escape {
            Some(e) => e.extended.as_ref().ok().and_then(|g| g.cycle.as_deref()),
            None => self.cdg.cycle.as_deref(),
        }
    }

    /// The verdict in one sentence, with the theorem it rests on.
    pub fn verdict_text(&self) -> &'static str {
        match self.verdict {
            Verdict::Proved => {
                if self.escape.is_some() {
                    "deadlock-free: the escape sub-function is connected and its extended dependency graph is acyclic (Duato, survey §4.2 Theorem 2)"
                } else if self.cdg.cycle.is_none() {
                    "deadlock-free: the channel dependency graph is acyclic (Dally and Seitz, survey §4.2 Theorem 1)"
                } else {
                    "deadlock-free"
                }
            }
            Verdict::Invalid => "not proved: the relation offers hops that do not exist",
            Verdict::NotConnected => "not proved: the relation is not connected",
            Verdict::NotMinimal => "not proved: the relation is not minimal, as its paper claims",
            Verdict::DeadlockPossible => {
                if self.escape.is_some() {
                    "not proved, deadlock not excluded: the extended dependency graph of the escape sub-function has a cycle (Duato's condition fails for this sub-function)"
                } else if self.deterministic {
                    "deadlock possible: the channel dependency graph of a deterministic relation has a cycle (survey §4.2 Theorem 1 is necessary and sufficient here)"
                } else {
                    "not proved, deadlock not excluded: the channel dependency graph has a cycle, and without an escape sub-function an acyclic graph is the only proof the checker has"
                }
            }
        }
    }

    /// The report as `routergen check` prints it, one finding per line.
    pub fn to_text(&self) -> String {
        let net = &self.net;
        let mut s = String::new();
        let shape = match net.topology {
            Topology::Hypercube => format!("{}-dimensional hypercube", net.dims),
            t => format!("{}-ary {}-dimensional {t}", net.radix, net.dims),
        };
        let _ = writeln!(
            s,
            "routergen check: {} on a {shape} ({} nodes), {} virtual channel{} per physical channel ({} needed to keep its classes apart)",
            self.relation,
            net.nodes(),
            self.vcs,
            if self.vcs == 1 { "" } else { "s" },
            self.classes_needed
        );
        let _ = writeln!(s, "channels: {}", self.channels);
        if let Some(bad) = &self.invalid {
            let _ = writeln!(s, "invalid hop: {bad}");
        }
        match &self.connected {
            Ok(pairs) => {
                let _ = writeln!(
                    s,
                    "connectivity: every source reaches every destination ({pairs} pairs)"
                );
            }
            Err(e) => {
                let _ = writeln!(s, "connectivity: FAILS: {e}");
            }
        }
        match &self.minimal {
            None => {
                let _ = writeln!(s, "minimality: not claimed");
            }
            Some(Ok(())) => {
                let _ = writeln!(
                    s,
                    "minimality: every permitted hop reduces the distance by one"
                );
            }
            Some(Err(e)) => {
                let _ = writeln!(s, "minimality: FAILS: {e}");
            }
        }
        let _ = writeln!(
            s,
            "channel dependency graph: {} channels, {} dependencies, {}",
            self.cdg.vertices,
            self.cdg.arcs,
            if self.cdg.cycle.is_some() {
                "cyclic"
            } else {
                "acyclic"
            }
        );
        if let Some(e) = &self.escape {
            let _ = writeln!(s, "escape sub-function: {} channels", e.channels);
            match &e.connected {
                Ok(()) => {
                    let _ = writeln!(s, "escape connectivity: an escape hop is offered in every reachable state, and it is minimal");
                }
                Err(m) => {
                    let _ = writeln!(s, "escape connectivity: FAILS: {m}");
                }
            }
            match &e.extended {
                Ok(g) => {
                    let _ = writeln!(
                        s,
                        "extended dependency graph of the escape sub-function: {} channels, {} dependencies, {}",
                        g.vertices,
                        g.arcs,
                        if g.cycle.is_some() { "cyclic" } else { "acyclic" }
                    );
                }
                Err(why) => {
                    let _ = writeln!(s, "extended dependency graph: not built: {why}");
                }
            }
        }
        if let Some(t) = &self.tables {
            let _ = writeln!(s, "{}", t.to_text());
        }
        let verdict = self.verdict_text();
        let _ = writeln!(s, "verdict: {verdict}");
        if self.verdict == Verdict::DeadlockPossible {
            if let Some(c) = self.cycle() {
                let _ = writeln!(s, "cycle ({} channels): {}", c.len(), cycle_text(net, c));
            }
        }
        s
    }
}

/// Everything a message bound for one destination can do.
#[derive(Debug, Clone)]
pub struct Explored {
    /// Visited states (channel ids), in BFS order.
    pub states: Vec<usize>,
    /// Arcs between states (source id, target id), injection excluded.
    pub arcs: Vec<(usize, usize)>,
    /// Channels first entered at injection.
    pub injected: Vec<usize>,
    /// Channels offered as escape hops toward the destination.
    pub escape: Vec<usize>,
}

/// First failure of each kind found while validating hops.
#[derive(Default)]
struct Findings {
    invalid: Option<String>,
    dead_end: Option<String>,
    not_minimal: Option<String>,
    no_escape: Option<String>,
}

impl Findings {
    /// Checks the hops a message for `dest` at `node` (arrived on `from`)
    /// is offered: at least one, escape among them for escape-based
    /// relations, each on an existing link and VC, each one hop closer.
    fn validate(
        &mut self,
        rel: &Relation,
        idx: &ChannelIndex,
        node: NodeId,
        from: Option<usize>,
        dest: NodeId,
        buf: &mut Vec<Hop>,
    ) {
        let net = rel.net;
        let input = match from {
            None => Input::INJECTED,
            Some(c) => {
                let ch = idx.channel(c);
                Input {
                    port: ch.port,
                    vc: ch.vc,
                }
            }
        };
        rel.route(node, input, dest, buf);
        let at = || {
            let how = match from {
                None => "at injection".to_string(),
                Some(c) => format!("arriving on {}", channel_name(&net, idx.channel(c))),
            };
            format!(
                "a message for {} at {} {how}",
                net.node_name(dest),
                net.node_name(node)
            )
        };
        if buf.is_empty() && self.dead_end.is_none() {
            self.dead_end = Some(format!("{} is offered no hop", at()));
        }
        if rel.has_escape() && !buf.iter().any(|h| h.escape) && self.no_escape.is_none() {
            self.no_escape = Some(format!("{} is offered no escape hop", at()));
        }
        for h in buf.iter() {
            let next = net.neighbour(node, h.port);
            let problem = if h.port == Port::Local {
                Some("the local port before its destination".to_string())
            } else if next.is_none() {
                Some(format!("port {}, which does not exist", h.port))
            } else if h.vc >= rel.vcs {
                Some(format!(
                    "vc{} on {}, but there are {} VCs",
                    h.vc, h.port, rel.vcs
                ))
            } else {
                None
            };
            if let Some(p) = problem {
                if self.invalid.is_none() {
                    self.invalid = Some(format!("{} is offered {p}", at()));
                }
                continue;
            }
            let next = next.unwrap_or(node);
            let (before, after) = (net.distance(node, dest), net.distance(next, dest));
            if after + 1 != before && self.not_minimal.is_none() {
                self.not_minimal = Some(format!(
                    "{} is offered {} vc{} to {}, {after} hops away instead of {}",
                    at(),
                    h.port,
                    h.vc,
                    net.node_name(next),
                    before - 1
                ));
            }
        }
    }
}

/// Checks `rel` on its network. `with_tables` also derives the routing-table
/// sizes (LAPSES §5) for the report.
pub fn check(rel: &Relation, with_tables: bool) -> Report {
    check_with_progress(rel, with_tables, &mut |_, _| {})
}

/// [`check`], calling `progress(done, total)` as the destinations are
/// explored one by one (the bulk of a long proof), for a progress bar.
pub fn check_with_progress(
    rel: &Relation,
    with_tables: bool,
    progress: &mut dyn FnMut(u64, u64),
) -> Report {
    let net = rel.net;
    let idx = ChannelIndex::new(net, rel.vcs);
    let graph = RelationGraph::new(rel);
    let mut ck = Findings::default();
    let mut seen = vec![0u32; idx.len()];
    let mut buf = Vec::new();
    let mut arcs: Vec<(u32, u32)> = Vec::new();
    let mut is_escape = vec![false; idx.len()];
    let mut trapped: Option<String> = None;
    let mut reach_x = vec![0u32; idx.len()];
    for dest in 0..net.nodes() {
        progress(u64::from(dest), u64::from(net.nodes()));
        let ex = explore_graph(&graph, dest, &mut seen);
        for src in (0..net.nodes()).filter(|&s| s != dest) {
            ck.validate(rel, &idx, src, None, dest, &mut buf);
        }
        for &c in &ex.states {
            let node = graph.head(c);
            if node != dest {
                ck.validate(rel, &idx, node, Some(c), dest, &mut buf);
            }
        }
        arcs.extend(ex.arcs.iter().map(|&(a, b)| (a as u32, b as u32)));
        if arcs.len() > 1 << 22 {
            arcs.sort_unstable();
            arcs.dedup();
        }
        for &e in &ex.escape {
            is_escape[e] = true;
        }
        // Every state must still be able to reach the destination.
        if trapped.is_none() {
            trapped = trapped_state(&net, &idx, dest, &ex, &mut reach_x);
        }
    }
    arcs.sort_unstable();
    arcs.dedup();
    let all = idx.all();
    let cdg = {
        let adj = Csr::from_arcs(idx.len(), &arcs);
        let cycle = find_cycle(idx.len(), |v, out| out.extend_from_slice(adj.row(v)));
        GraphResult {
            vertices: all.len(),
            arcs: arcs.len(),
            cycle: cycle.map(|c| c.into_iter().map(|id| idx.channel(id)).collect()),
        }
    };
    let pairs = net.nodes() as usize * (net.nodes() as usize - 1);
    let connected = match (&ck.dead_end, &trapped) {
        (Some(e), _) | (None, Some(e)) => Err(e.clone()),
        (None, None) => Ok(pairs),
    };
    let minimal = rel.claims_minimal().then(|| match &ck.not_minimal {
        Some(e) => Err(e.clone()),
        None => Ok(()),
    });
    let escape = rel.has_escape().then(|| {
        let channels = is_escape.iter().filter(|&&e| e).count();
        let connected = match (&ck.no_escape, &ck.not_minimal) {
            (Some(e), _) => Err(e.clone()),
            (None, Some(e)) => Err(format!("escape hops need not reach the destination: {e}")),
            (None, None) => Ok(()),
        };
        let extended = extended_dependency_graph(&RelationGraph::new(rel)).map(|g| GraphResult {
            vertices: g.members.len(),
            arcs: g.arcs,
            cycle: g
                .cycle
                .map(|c| c.into_iter().map(|id| idx.channel(id)).collect()),
        });
        EscapeResult {
            channels,
            connected,
            extended,
        }
    });
    let deadlock = match &escape {
        Some(e) => {
            e.connected.is_err()
                || match &e.extended {
                    Err(_) => true,
                    Ok(g) => g.cycle.is_some(),
                }
        }
        None => cdg.cycle.is_some(),
    };
    let verdict = if ck.invalid.is_some() {
        Verdict::Invalid
    } else if connected.is_err() {
        Verdict::NotConnected
    } else if matches!(minimal, Some(Err(_))) {
        Verdict::NotMinimal
    } else if deadlock {
        Verdict::DeadlockPossible
    } else {
        Verdict::Proved
    };
    let tables = with_tables.then(|| tables::sizes(rel));
    Report {
        net,
        relation: rel.name(),
        vcs: rel.vcs,
        classes_needed: rel.classes_needed(),
        deterministic: rel.is_deterministic(),
        channels: all.len(),
        invalid: ck.invalid,
        connected,
        minimal,
        cdg,
        escape,
        tables,
        verdict,
    }
}

/// A state bound for `dest` from which `dest` cannot be reached, if any.
fn trapped_state(
    net: &Network,
    idx: &ChannelIndex,
    dest: NodeId,
    ex: &Explored,
    mark: &mut [u32],
) -> Option<String> {
    let stamp = dest + 1;
    // Reverse arcs, then search back from the states that arrive at dest.
    let mut rev: Vec<(usize, usize)> = ex.arcs.iter().map(|&(a, b)| (b, a)).collect();
    rev.sort_unstable();
    rev.dedup();
    let mut stack: Vec<usize> = Vec::new();
    for &s in &ex.states {
        let c = idx.channel(s);
        if net.neighbour(c.node, c.port) == Some(dest) {
            mark[s] = stamp;
            stack.push(s);
        }
    }
    while let Some(s) = stack.pop() {
        let start = rev.partition_point(|&(b, _)| b < s);
        for &(b, a) in &rev[start..] {
            if b != s {
                break;
            }
            if mark[a] != stamp {
                mark[a] = stamp;
                stack.push(a);
            }
        }
    }
    ex.states.iter().find(|&&s| mark[s] != stamp).map(|&s| {
        format!(
            "a message for {} on {} can no longer reach it",
            net.node_name(dest),
            channel_name(net, idx.channel(s))
        )
    })
}

/// A routing function over abstract channels: what the graph builders need,
/// so they can be tested on networks outside the model (the survey's
/// unidirectional ring, §4.2 Figure 7).
pub trait ChannelGraph {
    /// Nodes of the network.
    fn nodes(&self) -> u32;
    /// Size of the channel id space.
    fn channel_count(&self) -> usize;
    /// The node channel `c` leads to.
    fn head(&self, c: usize) -> NodeId;
    /// Channels permitted at `node` toward `dest` for a message that arrived
    /// on `from` (`None`: injected there), each with its escape flag (whether
    /// the escape sub-function R_1 supplies it). Called with `node != dest`.
    fn next(&self, node: NodeId, from: Option<usize>, dest: NodeId, out: &mut Vec<(usize, bool)>);
}

/// Every state (channel last taken) of messages bound for `dest`, from
/// injection at every other node, with the arcs between states.
pub fn explore_graph<G: ChannelGraph>(g: &G, dest: NodeId, seen: &mut [u32]) -> Explored {
    let stamp = dest + 1;
    let mut ex = Explored {
        states: Vec::new(),
        arcs: Vec::new(),
        injected: Vec::new(),
        escape: Vec::new(),
    };
    let mut out = Vec::new();
    for src in (0..g.nodes()).filter(|&s| s != dest) {
        out.clear();
        g.next(src, None, dest, &mut out);
        for &(c, e) in &out {
            ex.injected.push(c);
            if e {
                ex.escape.push(c);
            }
            if seen[c] != stamp {
                seen[c] = stamp;
                ex.states.push(c);
            }
        }
    }
    let mut head = 0;
    while head < ex.states.len() {
        let from = ex.states[head];
        head += 1;
        let node = g.head(from);
        if node == dest {
            continue;
        }
        out.clear();
        g.next(node, Some(from), dest, &mut out);
        for &(c, e) in &out {
            ex.arcs.push((from, c));
            if e {
                ex.escape.push(c);
            }
            if seen[c] != stamp {
                seen[c] = stamp;
                ex.states.push(c);
            }
        }
    }
    ex
}

/// The channel dependency graph (survey §4.2, Definition 8) of `g`: its
/// arcs, and one cycle if it has any.
pub fn dependency_graph<G: ChannelGraph>(g: &G) -> (Vec<(u32, u32)>, Option<Vec<usize>>) {
    let n = g.channel_count();
    let mut seen = vec![0u32; n];
    let mut arcs: Vec<(u32, u32)> = Vec::new();
    for dest in 0..g.nodes() {
        let ex = explore_graph(g, dest, &mut seen);
        arcs.extend(ex.arcs.iter().map(|&(a, b)| (a as u32, b as u32)));
        if arcs.len() > 1 << 22 {
            arcs.sort_unstable();
            arcs.dedup();
        }
    }
    arcs.sort_unstable();
    arcs.dedup();
    let adj = Csr::from_arcs(n, &arcs);
    let cycle = find_cycle(n, |v, out| out.extend_from_slice(adj.row(v)));
    (arcs, cycle)
}

/// Duato's extended channel dependency graph of the escape sub-function.
#[derive(Debug, Clone)]
pub struct ExtendedGraph {
    /// C_1: every channel some state is offered as an escape hop.
    pub members: Vec<usize>,
    /// Arcs between members of C_1.
    pub arcs: usize,
    /// A cycle, as channel ids.
    pub cycle: Option<Vec<usize>>,
}

/// Builds Duato's extended channel dependency graph (survey §4.2,
/// Definitions 6, 7 and 9) of the escape sub-function of `g`: over C_1, an
/// arc c_i -> c_j when, for some destination x, a message for x that took
/// c_i can next wait on c_j, supplied by R_1 for x, either right away or
/// after channels not supplied by R_1 for x. That covers direct, indirect,
/// and direct and indirect cross dependencies (c_i in C_1 but taken as an
/// adaptive channel), and is a superset of Definition 7's indirect arcs
/// (whose intermediate channels lie outside C_1 altogether), so acyclic
/// here implies Duato's condition. `Err` when some destination's
/// non-escape channels can be revisited (the construction needs them to form
/// no cycle).
pub fn extended_dependency_graph<G: ChannelGraph>(g: &G) -> Result<ExtendedGraph, String> {
    let n = g.channel_count();
    let mut seen = vec![0u32; n];
    // C_1 and its dense numbering.
    let mut in_c1 = vec![false; n];
    for dest in 0..g.nodes() {
        for c in explore_graph(g, dest, &mut seen).escape {
            in_c1[c] = true;
        }
    }
    seen.iter_mut().for_each(|s| *s = 0);
    let mut c1 = vec![u32::MAX; n];
    let mut members = Vec::new();
    for (c, &e) in in_c1.iter().enumerate() {
        if e {
            c1[c] = members.len() as u32;
            members.push(c);
        }
    }
    let words = members.len().div_ceil(64).max(1);
    let mut adj = vec![0u64; members.len() * words];
    let mut r1_x = vec![u32::MAX; n];
    let mut local = vec![u32::MAX; n];
    // Position of each channel among this destination's R_1 channels: the
    // reach sets are bitsets over those, far fewer than C_1.
    let mut r1_pos = vec![0u32; n];
    for dest in 0..g.nodes() {
        let ex = explore_graph(g, dest, &mut seen);
        let mut r1_list: Vec<usize> = Vec::new();
        for &e in &ex.escape {
            if r1_x[e] != dest {
                r1_x[e] = dest;
                r1_pos[e] = r1_list.len() as u32;
                r1_list.push(e);
            }
        }
        let wx = r1_list.len().div_ceil(64).max(1);
        for (i, &s) in ex.states.iter().enumerate() {
            local[s] = i as u32;
        }
        let mut arcs: Vec<(u32, u32)> =
            ex.arcs.iter().map(|&(a, b)| (local[a], local[b])).collect();
        arcs.sort_unstable();
        arcs.dedup();
        let succ = Csr::from_arcs(ex.states.len(), &arcs);
        let is_r1 = |i: usize| r1_x[ex.states[i]] == dest;
        // reach(a) for an intermediate state a (not R_1 for dest) depends on
        // its intermediate successors: process in post-order over arcs into
        // intermediate states.
        let order = post_order(ex.states.len(), |v, out| {
            out.extend(succ.row(v).iter().copied().filter(|&w| !is_r1(w)))
        })
        .map_err(|state| {
            format!(
                "messages for node {dest} can revisit channel {} on non-escape channels",
                ex.states[state]
            )
        })?;
        let mut reach = vec![0u64; ex.states.len() * wx];
        let mut tmp = vec![0u64; wx];
        for &i in &order {
            tmp.iter_mut().for_each(|w| *w = 0);
            for &j in succ.row(i) {
                if is_r1(j) {
                    let k = r1_pos[ex.states[j]] as usize;
                    tmp[k / 64] |= 1 << (k % 64);
                } else {
                    for w in 0..wx {
                        tmp[w] |= reach[j * wx + w];
                    }
                }
            }
            // A C_1 member's row of the extended graph: what a message that
            // took it may wait on next in R_1.
            let si = ex.states[i];
            if c1[si] != u32::MAX {
                let row = c1[si] as usize * words;
                for (w, &word) in tmp.iter().enumerate() {
                    let mut bits = word;
                    while bits != 0 {
                        let k = c1[r1_list[w * 64 + bits.trailing_zeros() as usize]] as usize;
                        adj[row + k / 64] |= 1 << (k % 64);
                        bits &= bits - 1;
                    }
                }
            }
            if !is_r1(i) {
                reach[i * wx..(i + 1) * wx].copy_from_slice(&tmp);
            }
        }
        for &s in &ex.states {
            local[s] = u32::MAX;
        }
    }
    let arcs: usize = adj.iter().map(|w| w.count_ones() as usize).sum();
    let cycle = find_cycle(members.len(), |v, out| {
        for w in 0..words {
            let mut bits = adj[v * words + w];
            while bits != 0 {
                out.push(w * 64 + bits.trailing_zeros() as usize);
                bits &= bits - 1;
            }
        }
    });
    Ok(ExtendedGraph {
        arcs,
        cycle: cycle.map(|c| c.into_iter().map(|v| members[v]).collect()),
        members,
    })
}

/// Vertices of a graph in post-order (every vertex after its successors),
/// or `Err(v)` with a vertex on a cycle. Iterative.
fn post_order(n: usize, mut succ: impl FnMut(usize, &mut Vec<usize>)) -> Result<Vec<usize>, usize> {
    let mut color = vec![0u8; n];
    let mut order = Vec::with_capacity(n);
    let mut stack: Vec<(usize, Vec<usize>, usize)> = Vec::new();
    for root in 0..n {
        if color[root] != 0 {
            continue;
        }
        let mut s = Vec::new();
        succ(root, &mut s);
        color[root] = 1;
        stack.push((root, s, 0));
        while let Some(top) = stack.last_mut() {
            if top.2 < top.1.len() {
                let w = top.1[top.2];
                top.2 += 1;
                match color[w] {
                    0 => {
                        let mut s = Vec::new();
                        succ(w, &mut s);
                        color[w] = 1;
                        stack.push((w, s, 0));
                    }
                    1 => return Err(w),
                    _ => {}
                }
            } else {
                color[top.0] = 2;
                order.push(top.0);
                stack.pop();
            }
        }
    }
    Ok(order)
}

/// A [`Relation`] as a [`ChannelGraph`] over [`ChannelIndex`] ids; hops on
/// links that do not exist or VCs out of range are dropped (the checker
/// reports them separately).
pub struct RelationGraph<'a> {
    /// The relation.
    pub rel: &'a Relation,
    /// Numbering of its channels.
    pub idx: ChannelIndex,
    buf: std::cell::RefCell<Vec<Hop>>,
}

impl<'a> RelationGraph<'a> {
    /// The graph of `rel` over its network's channels.
    pub fn new(rel: &'a Relation) -> RelationGraph<'a> {
        RelationGraph {
            rel,
            idx: ChannelIndex::new(rel.net, rel.vcs),
            buf: std::cell::RefCell::new(Vec::new()),
        }
    }
}

impl ChannelGraph for RelationGraph<'_> {
    fn nodes(&self) -> u32 {
        self.rel.net.nodes()
    }

    fn channel_count(&self) -> usize {
        self.idx.len()
    }

    fn head(&self, c: usize) -> NodeId {
        let ch = self.idx.channel(c);
        self.rel.net.neighbour(ch.node, ch.port).unwrap_or(ch.node)
    }

    fn next(&self, node: NodeId, from: Option<usize>, dest: NodeId, out: &mut Vec<(usize, bool)>) {
        let input = match from {
            None => Input::INJECTED,
            Some(c) => {
                let ch = self.idx.channel(c);
                Input {
                    port: ch.port,
                    vc: ch.vc,
                }
            }
        };
        let mut buf = self.buf.borrow_mut();
        self.rel.route(node, input, dest, &mut buf);
        for h in buf.iter() {
            if h.port == Port::Local
                || h.vc >= self.rel.vcs
                || self.rel.net.neighbour(node, h.port).is_none()
            {
                continue;
            }
            let c = Channel {
                node,
                port: h.port,
                vc: h.vc,
            };
            out.push((self.idx.id(c), h.escape));
        }
    }
}

/// A routing table's restriction of a relation as a [`ChannelGraph`]:
/// at `node` toward `dest` a message is offered `hops[node][dest]`,
/// whatever it arrived on (a table entry does not see the input).
pub struct TableGraph<'a> {
    /// The network.
    pub net: Network,
    /// Numbering of its channels.
    pub idx: ChannelIndex,
    /// `hops[node][dest]`: the table entry at `node` toward `dest`.
    pub hops: &'a [Vec<Vec<Hop>>],
}

impl ChannelGraph for TableGraph<'_> {
    fn nodes(&self) -> u32 {
        self.net.nodes()
    }

    fn channel_count(&self) -> usize {
        self.idx.len()
    }

    fn head(&self, c: usize) -> NodeId {
        let ch = self.idx.channel(c);
        self.net.neighbour(ch.node, ch.port).unwrap_or(ch.node)
    }

    fn next(&self, node: NodeId, _: Option<usize>, dest: NodeId, out: &mut Vec<(usize, bool)>) {
        for h in &self.hops[node as usize][dest as usize] {
            if h.port != Port::Local && self.net.neighbour(node, h.port).is_some() {
                let c = Channel {
                    node,
                    port: h.port,
                    vc: h.vc,
                };
                out.push((self.idx.id(c), h.escape));
            }
        }
    }
}

/// Which channels serve as Duato's routing subfunction R_1 when a routing
/// table is proved ([`check_table_as`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TableEscape {
    /// The relation's escape channels, which every entry must keep.
    Relation,
    /// The relation's escape channels where an entry keeps one, and every
    /// hop the entry keeps where it keeps none. Duato's theorem (survey
    /// §4.2) holds for any connected routing subfunction, and this one is
    /// connected: every entry keeps a minimal hop.
    KeptWhereLost,
}

/// Proves the relation a routing table holds, `hops[node][dest]` (LAPSES
/// §5.1.1: a meta table can only narrow the relation's outputs): every
/// hop one the relation offers there (so minimal), at least one for every
/// pair (every destination stays reachable: each hop brings it one
/// closer), an escape hop wherever `rel` has escape channels, and the
/// channel dependency graph (or Duato's extended graph of the escape
/// channels, survey §4.2) acyclic. `Err` names the first failure.
pub fn check_table(rel: &Relation, hops: &[Vec<Vec<Hop>>]) -> Result<(), String> {
    check_table_as(rel, hops, TableEscape::Relation)
}

/// [`check_table`] with the routing subfunction `escape` for relations
/// with escape channels.
pub fn check_table_as(
    rel: &Relation,
    hops: &[Vec<Vec<Hop>>],
    escape: TableEscape,
) -> Result<(), String> {
    let net = rel.net;
    let mut buf = Vec::new();
    let mut lost = false;
    for node in 0..net.nodes() {
        for dest in (0..net.nodes()).filter(|&d| d != node) {
            let at = || format!("at {} toward {}", net.node_name(node), net.node_name(dest));
            let offered = &hops[node as usize][dest as usize];
            if offered.is_empty() {
                return Err(format!("{} the table permits no hop", at()));
            }
            rel.route(node, Input::INJECTED, dest, &mut buf);
            if let Some(h) = offered.iter().find(|h| !buf.contains(h)) {
                return Err(format!(
                    "{} the table permits {} vc{}, which the relation does not",
                    at(),
                    h.port,
                    h.vc
                ));
            }
            if rel.has_escape() && !offered.iter().any(|h| h.escape) {
                if escape == TableEscape::Relation {
                    return Err(format!(
                        "{} the table keeps no escape channel (Duato's proof needs one)",
                        at()
                    ));
                }
                lost = true;
            }
        }
    }
    let widened: Vec<Vec<Vec<Hop>>>;
    let hops = if lost {
        widened = hops
            .iter()
            .map(|row| {
                row.iter()
                    .map(|entry| {
                        let keeps = entry.iter().any(|h| h.escape);
                        entry
                            .iter()
                            .map(|&h| Hop {
                                escape: h.escape || !keeps,
                                ..h
                            })
                            .collect()
                    })
                    .collect()
            })
            .collect();
        &widened
    } else {
        hops
    };
    let g = TableGraph {
        net,
        idx: ChannelIndex::new(net, rel.vcs),
        hops,
    };
    let cycle = if rel.has_escape() {
        extended_dependency_graph(&g)?.cycle
    } else {
        dependency_graph(&g).1
    };
    match cycle {
        Some(c) => {
            let c: Vec<Channel> = c.into_iter().map(|id| g.idx.channel(id)).collect();
            Err(format!(
                "the channel dependency graph of the table's routes has a cycle: {}",
                cycle_text(&net, &c)
            ))
        }
        None => Ok(()),
    }
}

/// Compressed adjacency lists.
struct Csr {
    start: Vec<usize>,
    targets: Vec<usize>,
}

impl Csr {
    /// `arcs` sorted by source.
    fn from_arcs(n: usize, arcs: &[(u32, u32)]) -> Csr {
        let mut start = vec![0usize; n + 1];
        for &(a, _) in arcs {
            start[a as usize + 1] += 1;
        }
        for i in 0..n {
            start[i + 1] += start[i];
        }
        let targets = arcs.iter().map(|&(_, b)| b as usize).collect();
        Csr { start, targets }
    }

    fn row(&self, v: usize) -> &[usize] {
        &self.targets[self.start[v]..self.start[v + 1]]
    }
}

/// One cycle of a directed graph on `0..n`, by iterative depth-first search
/// (white/grey/black); `succ(v, out)` appends v's successors.
pub fn find_cycle(n: usize, mut succ: impl FnMut(usize, &mut Vec<usize>)) -> Option<Vec<usize>> {
    const WHITE: u8 = 0;
    const GREY: u8 = 1;
    const BLACK: u8 = 2;
    let mut color = vec![WHITE; n];
    // Stack frames: vertex, its successors, next successor to try.
    let mut stack: Vec<(usize, Vec<usize>, usize)> = Vec::new();
    for root in 0..n {
        if color[root] != WHITE {
            continue;
        }
        let mut s = Vec::new();
        succ(root, &mut s);
        color[root] = GREY;
        stack.push((root, s, 0));
        while let Some(top) = stack.last_mut() {
            if top.2 < top.1.len() {
                let w = top.1[top.2];
                top.2 += 1;
                match color[w] {
                    WHITE => {
                        let mut s = Vec::new();
                        succ(w, &mut s);
                        color[w] = GREY;
                        stack.push((w, s, 0));
                    }
                    GREY => {
                        let pos = stack.iter().position(|f| f.0 == w).unwrap_or(0);
                        return Some(stack[pos..].iter().map(|f| f.0).collect());
                    }
                    _ => {}
                }
            } else {
                color[top.0] = BLACK;
                stack.pop();
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn find_cycle_finds_a_real_cycle_or_none() {
        let g: Vec<Vec<usize>> = vec![vec![1], vec![2], vec![3], vec![1]];
        let c = find_cycle(4, |v, out| out.extend_from_slice(&g[v])).unwrap();
        assert_eq!(c.len(), 3);
        for i in 0..c.len() {
            assert!(g[c[i]].contains(&c[(i + 1) % c.len()]));
        }
        let dag: Vec<Vec<usize>> = vec![vec![1, 2], vec![2], vec![]];
        assert!(find_cycle(3, |v, out| out.extend_from_slice(&dag[v])).is_none());
    }

    #[test]
    fn find_cycle_handles_long_chains_without_recursion() {
        let n = 200_000;
        assert!(find_cycle(n, |v, out| {
            if v + 1 < n {
                out.push(v + 1)
            }
        })
        .is_none());
        let c = find_cycle(n, |v, out| out.push((v + 1) % n)).unwrap();
        assert_eq!(c.len(), n);
    }

    #[test]
    fn a_turn_set_that_strands_messages_is_not_connected() {
        use super::super::turn_model::Compass::{North, South, West};
        use super::super::{Turn, TurnSet};
        // Forbidding both turns out of west strands a message travelling
        // west at the west edge: no straight, no turn, no U-turn.
        let net = Network::new(Topology::Mesh, 2, 3).unwrap();
        let set = TurnSet::new(&[
            Turn {
                from: West,
                to: North,
            },
            Turn {
                from: West,
                to: South,
            },
        ]);
        let report = check(&Relation::turns(net, set).unwrap(), false);
        assert_eq!(report.verdict, Verdict::NotConnected);
        let why = report.connected.unwrap_err();
        assert!(why.contains("-x"), "{why}");
    }

    #[test]
    fn channel_index_round_trips() {
        for (t, k) in [
            (Topology::Mesh, 3),
            (Topology::Torus, 4),
            (Topology::Hypercube, 2),
            (Topology::UniTorus, 4),
        ] {
            let net = Network::new(t, 3, k).unwrap();
            let idx = ChannelIndex::new(net, 3);
            for c in idx.all() {
                assert_eq!(idx.channel(idx.id(c)), c);
            }
        }
    }
}
