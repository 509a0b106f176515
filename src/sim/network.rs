//! The simulated network: how the routers' ports are wired by links, and
//! the interface every simulation engine offers (one clock cycle at a time,
//! local ports driven from outside, link ports wired inside).

use crate::algo::{Network, NodeId, Port};
use crate::error::Result;
/// Interface port `p` of `node` as a relation port ([`port_at`]).
pub use crate::interface::port_at as port_of;
use crate::interface::{far_port, in_port_at, port_at, port_number};
use crate::spec::RouterSpec;

/// One flit on a port in one cycle (docs/interface.md, "Ports").
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Flit {
    /// Whether a flit is on the port this cycle; the other fields mean nothing without it.
    pub valid: bool,
    /// It is a head flit.
    pub head: bool,
    /// It is a tail flit (a one-flit packet is both head and tail).
    pub tail: bool,
    /// The virtual channel it travels on.
    pub vc: u8,
    /// The flit's bits, in the low flit-width bits.
    pub data: u64,
}

/// Everything the routers drive in one cycle: per node n and port p
/// (index n P + p) the flit leaving on p and the credit bits (bit v)
/// returned upstream for input VC v of p. The data of a body flit on a
/// link port may be left 0 (the netlist engine does not read it): the
/// driver checks flits' data where they leave the network, and reads a
/// head's tag on every link.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Outputs {
    /// Per node n and port p (index n P + p): the flit leaving on p.
    pub flits: Vec<Flit>,
    /// Per node n and port p: credit bits (bit v for input VC v), or on/off levels.
    pub credits: Vec<u32>,
    /// The indices n P + p of the valid flits, in increasing order.
    pub valid: Vec<u32>,
}

impl Outputs {
    /// `nodes` routers of `ports` ports, driving nothing.
    pub fn new(nodes: usize, ports: usize) -> Outputs {
        Outputs {
            flits: vec![Flit::default(); nodes * ports],
            credits: vec![0; nodes * ports],
            valid: Vec::new(),
        }
    }

    /// [`Outputs::valid`] from [`Outputs::flits`].
    pub fn index_valid(&mut self) {
        self.valid.clear();
        self.valid.extend(
            self.flits
                .iter()
                .enumerate()
                .filter(|(_, f)| f.valid)
                .map(|(k, _)| k as u32),
        );
    }
}

/// A network of routers wired by links, simulated one clock cycle at a
/// time. Link ports are wired inside the engine (a flit or credit driven in
/// cycle t reaches the neighbour's input in the same cycle t, as a wire);
/// the local ports (p0) are driven by the caller.
pub trait Engine {
    /// The routers' outputs in the current cycle. They depend on the
    /// routers' state only (docs/interface.md: no input reaches an output in
    /// the same cycle), so they can be read before the inputs are set.
    fn outputs(&self) -> &Outputs;
    /// Drives the local ports for the current cycle (`inject[n]`: the flit
    /// into node n's p0; `eject_credit[n]`: credit bits for node n's p0
    /// output VCs) and `rst`, then applies the rising clock edge that ends
    /// the cycle.
    fn step(&mut self, rst: bool, inject: &[Flit], eject_credit: &[u32]);
    /// The flit leaving on node n's port p (index `k` = n P + p) as the
    /// router drives it, its data, head, tail and VC also without a valid
    /// flit (for waveforms; [`Engine::outputs`] may leave those out).
    fn port_out(&self, k: usize) -> Flit {
        self.outputs().flits[k]
    }
}

/// An engine that counts the time spent in its `step` (the routers'
/// evaluation and the copying of links and outputs, none of the network
/// interfaces, traffic or checks): what `routergen bench` reports as the
/// routers alone.
pub struct Timed<'a> {
    /// The engine timed.
    pub engine: &'a mut dyn Engine,
    /// Total time spent in [`Engine::step`].
    pub spent: std::time::Duration,
}

impl Engine for Timed<'_> {
    fn outputs(&self) -> &Outputs {
        self.engine.outputs()
    }

    fn step(&mut self, rst: bool, inject: &[Flit], eject_credit: &[u32]) {
        let t = std::time::Instant::now();
        self.engine.step(rst, inject, eject_credit);
        self.spent += t.elapsed();
    }

    fn port_out(&self, k: usize) -> Flit {
        self.engine.port_out(k)
    }
}

/// Threads an engine evaluates the `nodes` routers of a cycle on, for
/// `asked` (the `--threads` option): at least 1, at most one per router.
/// Every router of a cycle reads its link inputs from the outputs sampled
/// before the cycle, so the result does not depend on the count.
pub fn threads(asked: usize, nodes: usize) -> usize {
    asked.min(nodes).max(1)
}

/// The threads of an engine, started once: the calling thread and
/// `threads - 1` workers that wait between cycles (a thread started per
/// cycle costs more than the routers' work on it).
pub struct Workers(Option<rayon::ThreadPool>);

impl Workers {
    /// The calling thread and `threads - 1` workers (none for 1 thread);
    /// an error if the workers cannot be started.
    pub fn new(threads: usize) -> crate::error::Result<Workers> {
        if threads <= 1 {
            return Ok(Workers(None));
        }
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads - 1)
            .thread_name(|i| format!("routergen-sim-{i}"))
            .build()
            .map(|p| Workers(Some(p)))
            .map_err(|e| {
                crate::error::Error::Simulation(format!("starting {threads} threads: {e}"))
            })
    }

    /// `f` on every part: the first on the calling thread, the others on
    /// the workers; returns when all are done.
    pub fn run<T: Send>(&self, parts: Vec<T>, f: impl Fn(T) + Sync) {
        let Some(pool) = &self.0 else {
            return parts.into_iter().for_each(f);
        };
        let f = &f;
        pool.in_place_scope(|s| {
            let mut parts = parts.into_iter();
            let first = parts.next();
            for part in parts {
                s.spawn(move |_| f(part));
            }
            if let Some(part) = first {
                f(part);
            }
        });
    }
}

/// `0..n` in `parts` contiguous ranges `(lo, hi)` of sizes differing by at
/// most one (`parts` at least 1).
pub fn split(n: usize, parts: usize) -> Vec<(usize, usize)> {
    let parts = parts.max(1);
    (0..parts)
        .map(|i| (n * i / parts, n * (i + 1) / parts))
        .collect()
}

/// Which port of which router each link port is wired to.
#[derive(Debug, Clone)]
pub struct Wiring {
    /// The network the routers form.
    pub net: Network,
    /// Ports per router P (the local port included) and VCs V.
    pub ports: usize,
    /// Virtual channels V per physical channel.
    pub vcs: usize,
    /// Per node n and port p (index n P + p): the router and port that
    /// port p sends into; `None` for p0 and for ports at a mesh edge (tied
    /// off).
    pub link: Vec<Option<(NodeId, usize)>>,
    /// Per node n and port p: the router and port that sends into port p.
    /// The same as `link` where links run both ways; on a unidirectional
    /// torus port d+1 sends toward + and receives from -.
    pub feed: Vec<Option<(NodeId, usize)>>,
}

impl Wiring {
    /// The wiring of `spec`'s network.
    pub fn new(spec: &RouterSpec) -> Result<Wiring> {
        let net = Network::new(spec.topology, spec.dims, spec.radix)?;
        let ports = spec.physical_ports() as usize;
        let mut link = vec![None; net.nodes() as usize * ports];
        let mut feed = vec![None; net.nodes() as usize * ports];
        for node in 0..net.nodes() {
            for p in 1..ports {
                let port = port_at(&net, node, p);
                if let Some(m) = net.neighbour(node, port) {
                    let q = far_port(spec.topology, p);
                    link[node as usize * ports + p] = Some((m, q));
                    feed[m as usize * ports + q] = Some((node, p));
                }
            }
        }
        Ok(Wiring {
            net,
            ports,
            vcs: spec.vcs as usize,
            link,
            feed,
        })
    }

    /// Routers in the network.
    pub fn nodes(&self) -> usize {
        self.net.nodes() as usize
    }

    /// The relation's name for interface port `p` of `node`, the way it
    /// sends.
    pub fn port(&self, node: NodeId, p: usize) -> Port {
        port_at(&self.net, node, p)
    }

    /// The relation's name for interface port `p` of `node`, the way it
    /// receives ([`crate::interface::in_port_at`]).
    pub fn in_port(&self, node: NodeId, p: usize) -> Port {
        in_port_at(&self.net, node, p)
    }

    /// Interface port of the relation's `port` at `node`.
    pub fn index(&self, port: Port) -> usize {
        port_number(self.net.topology, port)
    }

    /// `node (x,y) port +x vc 1`, for messages.
    pub fn channel_name(&self, node: NodeId, p: usize, vc: usize) -> String {
        format!(
            "node {} port {} ({}) vc {vc}",
            self.net.node_name(node),
            p,
            self.port(node, p)
        )
    }
}

/// Bits of one coordinate in `node_id` ([`crate::interface::coord_bits`]).
pub fn coord_bits(spec: &RouterSpec) -> u32 {
    crate::interface::coord_bits(spec.topology, spec.radix)
}

/// The `node_id` value of `node` ([`crate::interface::node_id`]).
pub fn node_id(spec: &RouterSpec, net: &Network, node: NodeId) -> u64 {
    crate::interface::node_id(net, coord_bits(spec), node)
}
