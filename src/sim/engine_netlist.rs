//! The netlist engine: the router synthesized once by Yosys to two-input
//! gates and flip-flops ([`crate::flows::yosys::netlist_json`], cached by
//! a hash of the Verilog, the script and the Yosys release), and every
//! router of the network evaluated at once, bit-parallel: each net is one
//! 64-bit word per 64 routers, bit lane n holding node n, so one word
//! operation evaluates a gate of 64 routers.
//!
//! A cycle: the local ports' inputs transposed into lanes, the link inputs
//! gathered from the neighbours' outputs (a lane permutation: per link
//! port a few shifted and masked copies of the far port's output words),
//! the logic that feeds the flip-flops evaluated, the rising edge (every
//! flip-flop takes its input), then the logic that drives the outputs,
//! which the driver reads before the next cycle. Outputs depend on the
//! state and on the inputs of the cycle just ended, as in the Verilator
//! engine, so both engines see the same values.

use std::hash::{Hash, Hasher};
use std::path::PathBuf;

use super::netlist::{Netlist, Program, ONE};
use super::network::{node_id, Engine, Flit, Outputs, Wiring};
use crate::error::{Error, Result};
use crate::router::tables::CompiledTable;
use crate::router::{core_verilog_of, top_verilog_of};
use crate::spec::RouterSpec;

/// The nets of one port's flit and credit signals, as word offsets: for
/// an input port the inputs `in_*` and `out_credit`, for an output port
/// the outputs `out_*` and `in_credit`.
#[derive(Debug, Clone, Default)]
struct PortNets {
    data: Vec<usize>,
    valid: usize,
    head: usize,
    tail: usize,
    vc: Vec<usize>,
    credit: Vec<usize>,
}

impl PortNets {
    /// Every net, flit signals first, in a fixed order shared by the input
    /// and output side (so input signal i is wired to output signal i).
    fn flit_nets(&self) -> Vec<usize> {
        let mut v = self.data.clone();
        v.extend([self.valid, self.head, self.tail]);
        v.extend(&self.vc);
        v
    }
}

/// The links from one far port q to one near port p: per (input net,
/// output net) pair the same lane permutation, as shifts: input lane l
/// takes output lane l + delta where `mask` has bit l.
#[derive(Debug, Clone)]
struct LinkGroup {
    pairs: Vec<(usize, usize)>,
    shifts: Vec<(isize, Vec<u64>)>,
}

/// The network of routers as one bit-parallel netlist.
pub struct NetlistEngine {
    words: usize,
    nodes: usize,
    ports: usize,
    v: Vec<u64>,
    step: Program,
    post: Program,
    ff: Vec<(usize, usize)>,
    ff_chained: Vec<(usize, usize)>,
    next: Vec<u64>,
    rst: usize,
    inputs: Vec<PortNets>,
    outputs: Vec<PortNets>,
    link_inputs: Vec<usize>,
    local_inputs: Vec<usize>,
    links: Vec<LinkGroup>,
    out: Outputs,
}

/// Where built netlists are kept: the Verilator engine's cache directory
/// ([`super::engine_verilator::cache_root`]).
fn cache_path(spec: &RouterSpec, key: u64) -> PathBuf {
    super::engine_verilator::cache_root().join(format!("netlist-{}-{key:016x}.json", spec.name()))
}

/// The router's netlist as Yosys JSON: from the cache, or synthesized and
/// cached. The key hashes the Verilog, the script and the Yosys release.
pub fn netlist_json(spec: &RouterSpec, table: &CompiledTable) -> Result<String> {
    let verilog = format!(
        "{}\n{}",
        top_verilog_of(spec, table)?,
        core_verilog_of(spec, table.clone())?
    );
    let mut h = std::collections::hash_map::DefaultHasher::new();
    verilog.hash(&mut h);
    crate::flows::yosys::NETLIST_SCRIPT.hash(&mut h);
    crate::flows::run("yosys", &["-V"], &std::env::temp_dir())
        .map(|o| o.stdout)
        .unwrap_or_default()
        .hash(&mut h);
    let path = cache_path(spec, h.finish());
    if let Ok(text) = std::fs::read_to_string(&path) {
        return Ok(text);
    }
    crate::flows::require("yosys", Some("the netlist simulation engine"))?;
    let text = crate::flows::yosys::netlist_json(&verilog, &spec.name())?;
    let fail = |e: std::io::Error| {
        Error::Simulation(format!("caching the netlist in {}: {e}", path.display()))
    };
    let dir = path.parent().unwrap_or(std::path::Path::new("."));
    std::fs::create_dir_all(dir).map_err(fail)?;
    // Written aside and renamed: a reader never sees half a file.
    let tmp = tempfile::NamedTempFile::new_in(dir).map_err(fail)?;
    std::fs::write(tmp.path(), &text).map_err(fail)?;
    tmp.persist(&path).map_err(|e| fail(e.error))?;
    Ok(text)
}

impl NetlistEngine {
    /// Synthesizes (or finds in the cache) the router of `spec` and builds
    /// the network of its [`Wiring`].
    pub fn new(spec: &RouterSpec, table: &CompiledTable) -> Result<Self> {
        let text = netlist_json(spec, table)?;
        let n = Netlist::from_yosys_json(&text, &spec.name(), "clk")?;
        Self::from_netlist(spec, &n)
    }

    /// The network of `spec` with every router the netlist `n` (whose
    /// ports are those of docs/interface.md).
    pub fn from_netlist(spec: &RouterSpec, n: &Netlist) -> Result<Self> {
        let w = Wiring::new(spec)?;
        let (nodes, ports) = (w.nodes(), w.ports);
        let words = nodes.div_ceil(64);
        let off = |net: u32| net as usize * words;
        let port = |name: &str, input: bool| -> Result<Vec<u32>> {
            match n.ports.get(name) {
                Some(p) if p.input == input => Ok(p.bits.clone()),
                _ => Err(Error::Simulation(format!(
                    "the router's netlist has no {} port {name}",
                    if input { "input" } else { "output" }
                ))),
            }
        };
        let one = |name: &str, input: bool| -> Result<usize> {
            match port(name, input)?[..] {
                [b] => Ok(off(b)),
                _ => Err(Error::Simulation(format!(
                    "the router's netlist: port {name} is not one bit"
                ))),
            }
        };
        let many = |name: &str, input: bool| -> Result<Vec<usize>> {
            Ok(port(name, input)?.into_iter().map(off).collect())
        };
        let mut inputs = Vec::new();
        let mut outputs = Vec::new();
        let rst = one("rst", true)?;
        // The nets that change from cycle to cycle (rst and the ports'
        // inputs), as net numbers.
        let mut changing = vec![(rst / words) as u32];
        for p in 0..ports {
            let i = PortNets {
                data: many(&format!("p{p}_in_data"), true)?,
                valid: one(&format!("p{p}_in_valid"), true)?,
                head: one(&format!("p{p}_in_head"), true)?,
                tail: one(&format!("p{p}_in_tail"), true)?,
                vc: many(&format!("p{p}_in_vc"), true)?,
                credit: many(&format!("p{p}_out_credit"), true)?,
            };
            let o = PortNets {
                data: many(&format!("p{p}_out_data"), false)?,
                valid: one(&format!("p{p}_out_valid"), false)?,
                head: one(&format!("p{p}_out_head"), false)?,
                tail: one(&format!("p{p}_out_tail"), false)?,
                vc: many(&format!("p{p}_out_vc"), false)?,
                credit: many(&format!("p{p}_in_credit"), false)?,
            };
            if i.data.len() > 64 || i.vc.len() > 8 || i.credit.len() > 32 {
                return Err(Error::Simulation(format!(
                    "the router's netlist: port {p} is wider than a flit (64 data bits, 8 VC \
                     bits, 32 credits)"
                )));
            }
            changing.extend(
                i.flit_nets()
                    .iter()
                    .chain(&i.credit)
                    .map(|&o| (o / words) as u32),
            );
            inputs.push(i);
            outputs.push(o);
        }
        for (name, p) in &n.ports {
            let known = [
                "clk",
                "rst",
                "node_id",
                "cfg_we",
                "cfg_addr",
                "cfg_mask",
                "cfg_class",
            ]
            .contains(&name.as_str())
                || (0..ports).any(|q| name.starts_with(&format!("p{q}_")));
            if !known {
                return Err(Error::Simulation(format!(
                    "the router's netlist has a port {name} the netlist engine does not drive"
                )));
            }
            if !p.input && p.bits.iter().any(|b| changing.contains(b)) {
                return Err(Error::Simulation(format!(
                    "the router's netlist wires an input straight to output {name}"
                )));
            }
        }
        let mut v = vec![0u64; n.nets * words];
        v[off(ONE)..off(ONE) + words].fill(!0);
        // node_id is constant per lane; the table's write port (cfg_*) is
        // tied off, as in the other engines: tables load at reset.
        if let Some(p) = n.ports.get("node_id") {
            for node in 0..nodes {
                let id = node_id(spec, &w.net, node as u32);
                for (b, &net) in p.bits.iter().enumerate() {
                    if id >> b & 1 == 1 {
                        v[off(net) + node / 64] |= 1 << (node % 64);
                    }
                }
            }
        }
        for f in &n.flip_flops {
            if f.init {
                v[off(f.q)..off(f.q) + words].fill(!0);
            }
        }
        // The logic after the edge: the outputs' cone. Before it: the
        // flip-flops' cone, less the cells the post-edge pass left valid
        // (in the outputs' cone and reached by no changing input).
        let levels = n.levelize()?;
        let out_nets: Vec<u32> = n
            .ports
            .values()
            .filter(|p| !p.input)
            .flat_map(|p| p.bits.iter().copied())
            .collect();
        let post_cone = n.cone(out_nets);
        let d_cone = n.cone(n.flip_flops.iter().map(|f| f.d));
        let reached = n.reached_from(changing.iter().copied());
        let order: Vec<usize> = levels.into_iter().flatten().collect();
        let post_cells: Vec<usize> = order.iter().copied().filter(|&c| post_cone[c]).collect();
        let step_cells: Vec<usize> = order
            .iter()
            .copied()
            .filter(|&c| d_cone[c] && (reached[c] || !post_cone[c]))
            .collect();
        let step = Program::new(n, &step_cells, words);
        let post = Program::new(n, &post_cells, words);
        let qs: std::collections::HashSet<u32> = n.flip_flops.iter().map(|f| f.q).collect();
        let (ff_chained, ff): (Vec<_>, Vec<_>) = n
            .flip_flops
            .iter()
            .map(|f| (qs.contains(&f.d), (off(f.d), off(f.q))))
            .partition(|(chained, _)| *chained);
        let ff_chained: Vec<(usize, usize)> = ff_chained.into_iter().map(|x| x.1).collect();
        let ff: Vec<(usize, usize)> = ff.into_iter().map(|x| x.1).collect();
        // Links: group the link ports by (near port, far port), each group
        // a lane permutation made of shifts.
        let mut link_inputs = Vec::new();
        let mut links = Vec::new();
        for (p, near) in inputs.iter().enumerate().skip(1) {
            link_inputs.extend(near.flit_nets());
            link_inputs.extend(&near.credit);
            for (q, far) in outputs.iter().enumerate().skip(1) {
                let mut deltas: std::collections::BTreeMap<isize, Vec<u64>> = Default::default();
                for node in 0..nodes {
                    if let Some((m, mq)) = w.link[node * ports + p] {
                        if mq == q {
                            let d = m as isize - node as isize;
                            deltas.entry(d).or_insert_with(|| vec![0; words])[node / 64] |=
                                1 << (node % 64);
                        }
                    }
                }
                if deltas.is_empty() {
                    continue;
                }
                let (a, b) = (near.flit_nets(), far.flit_nets());
                let (ac, bc) = (&near.credit, &far.credit);
                if a.len() != b.len() || ac.len() != bc.len() {
                    return Err(Error::Simulation(format!(
                        "the router's netlist: port {p}'s inputs do not match port {q}'s outputs"
                    )));
                }
                // Flits travel from q's outputs to p's inputs; credits
                // from q's in_credit to p's out_credit.
                let mut pairs: Vec<(usize, usize)> = a.into_iter().zip(b).collect();
                pairs.extend(ac.iter().copied().zip(bc.iter().copied()));
                links.push(LinkGroup {
                    pairs,
                    shifts: deltas.into_iter().collect(),
                });
            }
        }
        let local_inputs: Vec<usize> = inputs[0]
            .flit_nets()
            .into_iter()
            .chain(inputs[0].credit.iter().copied())
            .collect();
        let mut e = NetlistEngine {
            local_inputs,
            words,
            nodes,
            ports,
            next: vec![0; ff_chained.len() * words],
            ff_chained,
            v,
            step,
            post,
            ff,
            rst,
            inputs,
            outputs,
            link_inputs,
            links,
            out: Outputs {
                flits: vec![Flit::default(); nodes * ports],
                credits: vec![0; nodes * ports],
            },
        };
        e.post.eval(&mut e.v, words);
        e.sample();
        Ok(e)
    }

    /// Word operations per cycle for each 64 routers: (before the edge,
    /// after it).
    pub fn ops(&self) -> (usize, usize) {
        (self.step.len(), self.post.len())
    }

    fn gather_links(&mut self) {
        let words = self.words;
        let v = &mut self.v;
        for &n in &self.link_inputs {
            for i in 0..words {
                v[n + i] = 0;
            }
        }
        if words == 1 {
            for g in &self.links {
                for &(dst, src) in &g.pairs {
                    let y = v[src];
                    let mut x = 0;
                    for (d, mask) in &g.shifts {
                        let s = if *d >= 0 { y >> d } else { y << -d };
                        x |= s & mask[0];
                    }
                    v[dst] |= x;
                }
            }
            return;
        }
        for g in &self.links {
            for &(dst, src) in &g.pairs {
                for i in 0..words {
                    let mut x = 0;
                    for (d, mask) in &g.shifts {
                        x |= window(v, src, words, i as isize * 64 + d) & mask[i];
                    }
                    // The groups of one port cover disjoint lanes.
                    v[dst + i] |= x;
                }
            }
        }
    }

    fn set_local(&mut self, inject: &[Flit], eject_credit: &[u32]) {
        let words = self.words;
        let p0 = &self.inputs[0];
        for &n in &self.local_inputs {
            for i in 0..words {
                self.v[n + i] = 0;
            }
        }
        for (node, (f, &c)) in inject.iter().zip(eject_credit).enumerate() {
            let (wi, bit) = (node / 64, 1u64 << (node % 64));
            if *f != Flit::default() {
                let mut set = |net: usize, on: bool| {
                    if on {
                        self.v[net + wi] |= bit;
                    }
                };
                set(p0.valid, f.valid);
                set(p0.head, f.head);
                set(p0.tail, f.tail);
                for (b, &net) in p0.data.iter().enumerate() {
                    set(net, f.data >> b & 1 == 1);
                }
                for (b, &net) in p0.vc.iter().enumerate() {
                    set(net, f.vc >> b & 1 == 1);
                }
            }
            if c != 0 {
                for (b, &net) in p0.credit.iter().enumerate() {
                    if c >> b & 1 == 1 {
                        self.v[net + wi] |= bit;
                    }
                }
            }
        }
    }

    /// The outputs of every lane into [`Outputs`]; the data of a port
    /// without a valid flit is left 0 (the driver reads it only with valid).
    fn sample(&mut self) {
        let (words, nodes, ports) = (self.words, self.nodes, self.ports);
        let v = &self.v;
        for (p, o) in self.outputs.iter().enumerate() {
            for node in 0..nodes {
                self.out.flits[node * ports + p] = Flit::default();
            }
            for wi in 0..words {
                let mut x = v[o.valid + wi];
                while x != 0 {
                    let bi = x.trailing_zeros() as usize;
                    x &= x - 1;
                    let node = wi * 64 + bi;
                    if node >= nodes {
                        break;
                    }
                    self.out.flits[node * ports + p] = lane_flit(v, o, wi, bi);
                }
            }
            for node in 0..nodes {
                self.out.credits[node * ports + p] = 0;
            }
            for (c, &net) in o.credit.iter().enumerate() {
                for wi in 0..words {
                    let mut x = v[net + wi];
                    while x != 0 {
                        let node = wi * 64 + x.trailing_zeros() as usize;
                        x &= x - 1;
                        if node < nodes {
                            self.out.credits[node * ports + p] |= 1 << c;
                        }
                    }
                }
            }
        }
    }
}

/// The flit on the output nets `o` in bit `bi` of word `wi` (node
/// 64 wi + bi), valid or not.
fn lane_flit(v: &[u64], o: &PortNets, wi: usize, bi: usize) -> Flit {
    let bit = |net: usize| (v[net + wi] >> bi) & 1;
    let mut data = 0u64;
    for (b, &net) in o.data.iter().enumerate() {
        data |= bit(net) << b;
    }
    let mut vc = 0u8;
    for (b, &net) in o.vc.iter().enumerate() {
        vc |= (bit(net) as u8) << b;
    }
    Flit {
        valid: bit(o.valid) == 1,
        head: bit(o.head) == 1,
        tail: bit(o.tail) == 1,
        vc,
        data,
    }
}

/// The 64 lanes of the `words`-word net at `net` from lane `start` on
/// (zero outside the network).
#[inline]
fn window(v: &[u64], net: usize, words: usize, start: isize) -> u64 {
    let word = |k: isize| {
        if k >= 0 && (k as usize) < words {
            v[net + k as usize]
        } else {
            0
        }
    };
    let (q, r) = (start.div_euclid(64), start.rem_euclid(64) as u32);
    let lo = word(q) >> r;
    if r == 0 {
        lo
    } else {
        lo | word(q + 1) << (64 - r)
    }
}

impl Engine for NetlistEngine {
    fn outputs(&self) -> &Outputs {
        &self.out
    }

    fn step(&mut self, rst: bool, inject: &[Flit], eject_credit: &[u32]) {
        let words = self.words;
        self.v[self.rst..self.rst + words].fill(if rst { !0 } else { 0 });
        self.set_local(inject, eject_credit);
        self.gather_links();
        self.step.eval(&mut self.v, words);
        // The edge: every flip-flop takes its input at once.
        // (Word loops, not slice copies: a call per one-word slice costs
        // more than the copy.)
        // Flip-flops whose input is another's output go through `next`;
        // the others are copied in place.
        let (v, next) = (&mut self.v, &mut self.next);
        for (k, &(d, _)) in self.ff_chained.iter().enumerate() {
            for i in 0..words {
                next[k * words + i] = v[d + i];
            }
        }
        for &(d, q) in &self.ff {
            for i in 0..words {
                v[q + i] = v[d + i];
            }
        }
        for (k, &(_, q)) in self.ff_chained.iter().enumerate() {
            for i in 0..words {
                v[q + i] = next[k * words + i];
            }
        }
        self.post.eval(&mut self.v, words);
        self.sample();
    }

    /// Read from the lanes: [`NetlistEngine::sample`] keeps only valid flits.
    fn port_out(&self, k: usize) -> Flit {
        let (node, p) = (k / self.ports, k % self.ports);
        lane_flit(&self.v, &self.outputs[p], node / 64, node % 64)
    }
}
