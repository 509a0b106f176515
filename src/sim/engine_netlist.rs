//! The netlist engine: the router synthesized once by Yosys to two-input
//! gates and flip-flops ([`crate::flows::yosys::netlist_json`], cached by
//! a hash of the Verilog, the script and the Yosys release), and every
//! router of the network evaluated at once, bit-parallel: each net is one
//! 64-bit word per 64 routers (lanes), so one word operation evaluates a
//! gate of 64 routers. The words of 64 lanes form a block (the nets
//! numbered in the order a cycle first touches them, `first_use`); up to
//! four blocks form a group, in which the words of one net lie side by
//! side, so that the compiled gates evaluate a net of the whole group in
//! one SIMD operation ([`Layout`]); groups one after another. The gates run as
//! generated C compiled once ([`Eval::Compiled`]) or as an interpreted op
//! list ([`Eval::Interpreted`]), with the same results.
//!
//! The lanes may hold several copies of the network side by side (one per
//! experiment of [`super::run_many`]): copy c's node n is lane c N + n, and
//! links join lanes of one copy only.
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

use super::netlist::compiled::{Compiled, MAX_GROUP};
use super::netlist::{Netlist, Program, ONE, ZERO};
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
/// takes output lane l + delta where `mask` (a word per block) has bit l.
#[derive(Debug, Clone)]
struct LinkGroup {
    pairs: Vec<(usize, usize)>,
    shifts: Vec<(isize, Vec<u64>)>,
}

/// Where a block's word of a net lies: blocks of 64 lanes in groups of
/// `group` (a power of two), the `group` words of a net side by side (a
/// vector the compiled gates work on at once), each group `stride` nets
/// long.
#[derive(Debug, Clone, Copy)]
struct Layout {
    group: usize,
    /// log2 of `group`: the word of every access is found with shifts.
    shift: u32,
    stride: usize,
}

impl Layout {
    fn new(group: usize, stride: usize) -> Layout {
        debug_assert!(group.is_power_of_two());
        Layout {
            group,
            shift: group.trailing_zeros(),
            stride,
        }
    }

    /// The word of net `net` in block `b`.
    #[inline]
    fn at(self, b: usize, net: usize) -> usize {
        (((b >> self.shift) * self.stride + net) << self.shift) + (b & (self.group - 1))
    }

    /// Words per group.
    fn group_words(self) -> usize {
        self.stride << self.shift
    }
}

/// How the gates are evaluated.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Eval {
    /// Generated C, compiled once and cached ([`Compiled`]).
    Compiled,
    /// The interpreted op list ([`Program`]): no compiler needed.
    Interpreted,
}

impl Eval {
    /// Compiled when a C compiler is found and `ROUTERGEN_NETLIST_EVAL`
    /// is not `interpreted`; interpreted otherwise.
    pub fn default_here() -> Eval {
        let asked = std::env::var("ROUTERGEN_NETLIST_EVAL").unwrap_or_default();
        if asked != "interpreted" && !crate::flows::cc::version().is_empty() {
            Eval::Compiled
        } else {
            Eval::Interpreted
        }
    }
}

/// The gates of a cycle, either way.
enum Gates {
    Compiled(Compiled),
    Interpreted {
        pre: Program,
        post: Program,
        /// Flip-flops (d, q) whose d is no flip-flop's q: copied in place.
        ff: Vec<(usize, usize)>,
        /// The others, through `next`.
        ff_chained: Vec<(usize, usize)>,
        next: Vec<u64>,
    },
}

impl Gates {
    /// One cycle of `groups` groups of `l` (interpreted: groups of one
    /// block).
    fn cycle(&mut self, v: &mut [u64], groups: usize, l: Layout) {
        let (blocks, stride) = (groups, l.group_words());
        match self {
            Gates::Compiled(c) => c.cycle(v, groups, stride),
            Gates::Interpreted {
                pre,
                post,
                ff,
                ff_chained,
                next,
            } => {
                for b in v.chunks_exact_mut(stride).take(blocks) {
                    pre.eval(b);
                    // The edge: every flip-flop takes its input at once.
                    for (k, &(d, _)) in ff_chained.iter().enumerate() {
                        next[k] = b[d];
                    }
                    for &(d, q) in ff.iter() {
                        b[q] = b[d];
                    }
                    for (k, &(_, q)) in ff_chained.iter().enumerate() {
                        b[q] = next[k];
                    }
                    post.eval(b);
                }
            }
        }
    }

    fn post(&mut self, v: &mut [u64], groups: usize, l: Layout) {
        let (blocks, stride) = (groups, l.group_words());
        match self {
            Gates::Compiled(c) => c.post(v, groups, stride),
            Gates::Interpreted { post, .. } => {
                for b in v.chunks_exact_mut(stride).take(blocks) {
                    post.eval(b);
                }
            }
        }
    }
}

/// The network of routers as one bit-parallel netlist.
pub struct NetlistEngine {
    /// Blocks of 64 lanes, groups of them, and where their words lie.
    blocks: usize,
    groups: usize,
    layout: Layout,
    lanes: usize,
    ports: usize,
    eval: Eval,
    v: Vec<u64>,
    gates: Gates,
    rst: usize,
    inputs: Vec<PortNets>,
    outputs: Vec<PortNets>,
    link_inputs: Vec<usize>,
    local_inputs: Vec<usize>,
    links: Vec<LinkGroup>,
    out: Outputs,
}

/// Where built netlists are kept: the Verilator engine's cache directory
/// ([`super::dynlib::cache_root`]).
fn cache_path(spec: &RouterSpec, key: u64) -> PathBuf {
    super::dynlib::cache_root().join(format!("netlist-{}-{key:016x}.json", spec.name()))
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
    let _interrupt = crate::interrupt::remove_on_interrupt(tmp.path());
    std::fs::write(tmp.path(), &text).map_err(fail)?;
    tmp.persist(&path).map_err(|e| fail(e.error))?;
    Ok(text)
}

/// The router's netlist, read: from the cache's binary copy, keyed by the
/// specification, `variant` (what else chooses the routing table) and the
/// builds of routergen and Yosys ([`super::dynlib::build_identity`]),
/// which spares compiling the table (a scan of every node and destination)
/// and generating the Verilog; else from [`netlist_json`] of the table
/// `table` gives, then kept in binary.
pub fn netlist(
    spec: &RouterSpec,
    variant: &str,
    table: impl FnOnce() -> Result<CompiledTable>,
) -> Result<Netlist> {
    let mut h = std::collections::hash_map::DefaultHasher::new();
    format!("{spec:?} {variant}").hash(&mut h);
    let yosys = crate::flows::find_tool("yosys");
    super::dynlib::build_identity(yosys.as_deref()).hash(&mut h);
    let path = super::dynlib::cache_root().join(format!(
        "netlist-{}-{:016x}.bin",
        spec.name(),
        h.finish()
    ));
    if let Some(n) = std::fs::read(&path)
        .ok()
        .and_then(|b| Netlist::from_bytes(&b).ok())
    {
        return Ok(n);
    }
    let n = Netlist::from_yosys_json(&netlist_json(spec, &table()?)?, &spec.name(), "clk")?;
    // Written aside and renamed: a reader never sees half a file. A cache
    // that cannot be written costs the next run time, nothing else.
    let dir = path.parent().unwrap_or(std::path::Path::new("."));
    if let Ok(tmp) = tempfile::NamedTempFile::new_in(dir) {
        let _interrupt = crate::interrupt::remove_on_interrupt(tmp.path());
        if std::fs::write(tmp.path(), n.to_bytes()).is_ok() {
            let _ = tmp.persist(&path);
        }
    }
    Ok(n)
}

impl NetlistEngine {
    /// Synthesizes (or finds in the cache, [`netlist`]) the router of `spec` and builds
    /// `copies` copies of the network of its [`Wiring`] in the lanes of one
    /// engine, the gates evaluated as [`Eval::default_here`].
    pub fn new(
        spec: &RouterSpec,
        variant: &str,
        table: impl FnOnce() -> Result<CompiledTable>,
        copies: usize,
    ) -> Result<Self> {
        Self::from_netlist(
            spec,
            &netlist(spec, variant, table)?,
            copies,
            Eval::default_here(),
        )
    }

    /// `copies` copies of the network of `spec` with every router the
    /// netlist `n` (whose ports are those of docs/interface.md), the gates
    /// evaluated as `eval`.
    pub fn from_netlist(spec: &RouterSpec, n: &Netlist, copies: usize, eval: Eval) -> Result<Self> {
        let n = &n.renumbered(&first_use(n)?);
        let w = Wiring::new(spec)?;
        let (nodes, ports) = (w.nodes(), w.ports);
        let lanes = nodes * copies.max(1);
        let blocks = lanes.div_ceil(64);
        // Whole cache lines per block.
        let stride = n.nets.div_ceil(8) * 8;
        // Compiled gates work on up to four blocks at once (the
        // interpreter on one); a group that is not full computes idle
        // lanes.
        let group = match eval {
            Eval::Compiled => blocks.next_power_of_two().min(MAX_GROUP),
            Eval::Interpreted => 1,
        };
        let groups = blocks.div_ceil(group);
        let layout = Layout::new(group, stride);
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
                [b] => Ok(b as usize),
                _ => Err(Error::Simulation(format!(
                    "the router's netlist: port {name} is not one bit"
                ))),
            }
        };
        let many = |name: &str, input: bool| -> Result<Vec<usize>> {
            Ok(port(name, input)?.into_iter().map(|b| b as usize).collect())
        };
        let mut inputs = Vec::new();
        let mut outputs = Vec::new();
        let rst = one("rst", true)?;
        // The nets that change from cycle to cycle (rst and the ports'
        // inputs).
        let mut changing = vec![rst as u32];
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
            changing.extend(i.flit_nets().iter().chain(&i.credit).map(|&o| o as u32));
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
        let mut v = vec![0u64; groups * layout.group_words()];
        // node_id is constant per lane; the table's write port (cfg_*) is
        // tied off, as in the other engines: tables load at reset.
        let ids: Vec<u64> = (0..nodes)
            .map(|node| node_id(spec, &w.net, node as u32))
            .collect();
        for b in 0..groups * group {
            v[layout.at(b, ONE as usize)] = !0;
            for f in &n.flip_flops {
                if f.init {
                    v[layout.at(b, f.q as usize)] = !0;
                }
            }
            if let Some(p) = n.ports.get("node_id") {
                for lane in b * 64..lanes.min(b * 64 + 64) {
                    let id = ids[lane % nodes];
                    for (bit, &net) in p.bits.iter().enumerate() {
                        if id >> bit & 1 == 1 {
                            v[layout.at(b, net as usize)] |= 1 << (lane % 64);
                        }
                    }
                }
            }
        }
        let (pre_cells, post_cells) = cycle_cells(n)?;
        let ffs: Vec<(u32, u32)> = n.flip_flops.iter().map(|f| (f.d, f.q)).collect();
        let gates = match eval {
            Eval::Compiled => Gates::Compiled(Compiled::new(
                n,
                &spec.name(),
                &pre_cells,
                &ffs,
                &post_cells,
                group,
            )?),
            Eval::Interpreted => {
                let qs: std::collections::HashSet<u32> = ffs.iter().map(|f| f.1).collect();
                let (chained, plain): (Vec<_>, Vec<_>) =
                    ffs.iter().partition(|(d, _)| qs.contains(d));
                let pairs = |x: Vec<&(u32, u32)>| -> Vec<(usize, usize)> {
                    x.into_iter()
                        .map(|&(d, q)| (d as usize, q as usize))
                        .collect()
                };
                Gates::Interpreted {
                    pre: Program::new(n, &pre_cells),
                    post: Program::new(n, &post_cells),
                    next: vec![0; chained.len()],
                    ff: pairs(plain),
                    ff_chained: pairs(chained),
                }
            }
        };
        // Links: group the link ports by (near port, far port), each group
        // a lane permutation made of shifts (the same in every copy).
        let mut link_inputs = Vec::new();
        let mut links = Vec::new();
        for (p, near) in inputs.iter().enumerate().skip(1) {
            link_inputs.extend(near.flit_nets());
            link_inputs.extend(&near.credit);
            for (q, far) in outputs.iter().enumerate().skip(1) {
                // Lanes whose port p is fed by port q (flits), and lanes
                // whose port p sends into port q (credits come back from
                // there): the same links unless the rings run one way.
                let shifts = |table: &[Option<(crate::algo::NodeId, usize)>]| {
                    let mut deltas: std::collections::BTreeMap<isize, Vec<u64>> =
                        Default::default();
                    for lane in 0..lanes {
                        let node = lane % nodes;
                        if let Some((m, mq)) = table[node * ports + p] {
                            if mq == q {
                                let d = m as isize - node as isize;
                                deltas.entry(d).or_insert_with(|| vec![0; blocks])[lane / 64] |=
                                    1 << (lane % 64);
                            }
                        }
                    }
                    deltas.into_iter().collect::<Vec<_>>()
                };
                let (flit_shifts, credit_shifts) = (shifts(&w.feed), shifts(&w.link));
                if flit_shifts.is_empty() && credit_shifts.is_empty() {
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
                let flits: Vec<(usize, usize)> = a.into_iter().zip(b).collect();
                let credits: Vec<(usize, usize)> =
                    ac.iter().copied().zip(bc.iter().copied()).collect();
                if flit_shifts == credit_shifts {
                    links.push(LinkGroup {
                        pairs: [flits, credits].concat(),
                        shifts: flit_shifts,
                    });
                } else {
                    for (pairs, shifts) in [(flits, flit_shifts), (credits, credit_shifts)] {
                        if !shifts.is_empty() {
                            links.push(LinkGroup { pairs, shifts });
                        }
                    }
                }
            }
        }
        let local_inputs: Vec<usize> = inputs[0]
            .flit_nets()
            .into_iter()
            .chain(inputs[0].credit.iter().copied())
            .collect();
        let mut e = NetlistEngine {
            local_inputs,
            blocks,
            groups,
            layout,
            lanes,
            ports,
            eval,
            v,
            gates,
            rst,
            inputs,
            outputs,
            link_inputs,
            links,
            out: Outputs::new(lanes, ports),
        };
        e.gates.post(&mut e.v, groups, layout);
        e.sample();
        Ok(e)
    }

    /// How the gates are evaluated.
    pub fn eval(&self) -> Eval {
        self.eval
    }

    fn gather_links(&mut self) {
        let (blocks, l) = (self.blocks, self.layout);
        let v = &mut self.v;
        for b in 0..blocks {
            for &n in &self.link_inputs {
                v[l.at(b, n)] = 0;
            }
        }
        if blocks == 1 {
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
                for i in 0..blocks {
                    let mut x = 0;
                    for (d, mask) in &g.shifts {
                        x |= window(v, src, blocks, l, i as isize * 64 + d) & mask[i];
                    }
                    // The groups of one port cover disjoint lanes.
                    v[l.at(i, dst)] |= x;
                }
            }
        }
    }

    fn set_local(&mut self, inject: &[Flit], eject_credit: &[u32]) {
        let l = self.layout;
        let p0 = &self.inputs[0];
        for b in 0..self.blocks {
            for &n in &self.local_inputs {
                self.v[l.at(b, n)] = 0;
            }
        }
        for (lane, (f, &c)) in inject.iter().zip(eject_credit).enumerate() {
            let (base, bit) = (l.at(lane / 64, 0), 1u64 << (lane % 64));
            let g = l.group;
            if f.valid {
                let mut set = |net: usize, on: bool| {
                    if on {
                        self.v[base + net * g] |= bit;
                    }
                };
                set(p0.valid, true);
                set(p0.head, f.head);
                set(p0.tail, f.tail);
                let mut d = f.data;
                while d != 0 {
                    let b = d.trailing_zeros() as usize;
                    d &= d - 1;
                    if let Some(&net) = p0.data.get(b) {
                        set(net, true);
                    }
                }
                for (b, &net) in p0.vc.iter().enumerate() {
                    set(net, f.vc >> b & 1 == 1);
                }
            }
            if c != 0 {
                for (b, &net) in p0.credit.iter().enumerate() {
                    if c >> b & 1 == 1 {
                        self.v[base + net * g] |= bit;
                    }
                }
            }
        }
    }

    /// The outputs of every lane into [`Outputs`], read only from the
    /// lanes that drive a valid flit (the data of the others means
    /// nothing and is left 0).
    fn sample(&mut self) {
        let (l, lanes, ports) = (self.layout, self.lanes, self.ports);
        let out = &mut self.out;
        for &k in &out.valid {
            out.flits[k as usize] = Flit::default();
        }
        out.valid.clear();
        for wi in 0..self.blocks {
            let block = Block::new(&self.v, l, wi);
            let hi = lanes.min(wi * 64 + 64);
            let live = if hi - wi * 64 == 64 {
                !0
            } else {
                (1u64 << (hi - wi * 64)) - 1
            };
            // Lanes in increasing order, ports in order within a lane.
            let mut any = self.outputs.iter().fold(0, |a, o| a | block.word(o.valid)) & live;
            while any != 0 {
                let bi = any.trailing_zeros() as usize;
                any &= any - 1;
                let lane = wi * 64 + bi;
                let bit = |net: usize| (block.word(net) >> bi) & 1;
                for (p, o) in self.outputs.iter().enumerate() {
                    if bit(o.valid) == 0 {
                        continue;
                    }
                    let head = bit(o.head) == 1;
                    let mut data = 0u64;
                    // The data of a body flit on a link is read by no one
                    // (the driver checks it where it leaves the network).
                    if head || p == 0 {
                        for (b, &net) in o.data.iter().enumerate() {
                            data |= bit(net) << b;
                        }
                    }
                    let mut vc = 0u8;
                    for (b, &net) in o.vc.iter().enumerate() {
                        vc |= (bit(net) as u8) << b;
                    }
                    out.flits[lane * ports + p] = Flit {
                        valid: true,
                        head,
                        tail: bit(o.tail) == 1,
                        vc,
                        data,
                    };
                    out.valid.push((lane * ports + p) as u32);
                }
            }
            out.credits[wi * 64 * ports..hi * ports].fill(0);
            for (p, o) in self.outputs.iter().enumerate() {
                for (c, &net) in o.credit.iter().enumerate() {
                    let mut x = block.word(net) & live;
                    while x != 0 {
                        let lane = wi * 64 + x.trailing_zeros() as usize;
                        x &= x - 1;
                        out.credits[lane * ports + p] |= 1 << c;
                    }
                }
            }
        }
    }
}

/// The nets the engine changes from cycle to cycle: `rst` and the ports'
/// inputs (`p<p>_in_*`, `p<p>_out_credit`); the others (`node_id`, the
/// tied-off `cfg_*`) are constant.
fn changing_inputs(n: &Netlist) -> impl Iterator<Item = u32> + '_ {
    n.ports
        .iter()
        .filter(|(name, p)| p.input && (name.as_str() == "rst" || name.starts_with('p')))
        .flat_map(|(_, p)| p.bits.iter().copied())
}

/// The cells of a cycle, each in evaluation order: after the edge the
/// outputs' cone; before it the flip-flops' cone, less the cells the
/// post-edge pass leaves valid (in the outputs' cone and reached by no
/// changing input, [`changing_inputs`]).
fn cycle_cells(n: &Netlist) -> Result<(Vec<usize>, Vec<usize>)> {
    let levels = n.levelize()?;
    let out_nets: Vec<u32> = n
        .ports
        .values()
        .filter(|p| !p.input)
        .flat_map(|p| p.bits.iter().copied())
        .collect();
    let post_cone = n.cone(out_nets);
    let d_cone = n.cone(n.flip_flops.iter().map(|f| f.d));
    let reached = n.reached_from(changing_inputs(n));
    let order: Vec<usize> = levels.into_iter().flatten().collect();
    let post: Vec<usize> = order.iter().copied().filter(|&c| post_cone[c]).collect();
    let pre: Vec<usize> = order
        .iter()
        .copied()
        .filter(|&c| d_cone[c] && (reached[c] || !post_cone[c]))
        .collect();
    Ok((pre, post))
}

/// New net numbers (a permutation of the nets, [`Netlist::renumbered`]):
/// the nets in the order a cycle first touches them (the cells before the
/// edge in the generated code's order, the flip-flops, the cells after
/// it), then the nets no cell touches. A block's words are then read
/// nearly in order, a cache line's eight words close together in time,
/// where Yosys's numbers scatter the nets of neighbouring gates over the
/// whole block.
fn first_use(n: &Netlist) -> Result<Vec<u32>> {
    use super::netlist::compiled::depth_first;
    let (pre, post) = cycle_cells(n)?;
    const NEW: u32 = u32::MAX;
    let mut new = vec![NEW; n.nets];
    new[ZERO as usize] = ZERO;
    new[ONE as usize] = ONE;
    let mut next = 2;
    let mut touch = |x: u32| {
        if new[x as usize] == NEW {
            new[x as usize] = next;
            next += 1;
        }
    };
    let cells = |order: Vec<usize>| {
        order.into_iter().flat_map(|k| {
            let c = &n.cells[k];
            let arity = c.kind.arity();
            c.inputs.into_iter().take(arity).chain([c.out])
        })
    };
    for x in cells(depth_first(n, &pre)) {
        touch(x);
    }
    for f in &n.flip_flops {
        touch(f.d);
        touch(f.q);
    }
    for x in cells(depth_first(n, &post)) {
        touch(x);
    }
    for x in 0..n.nets as u32 {
        touch(x);
    }
    Ok(new)
}

/// One block's words (64 lanes) of the engine's words.
#[derive(Clone, Copy)]
struct Block<'a> {
    /// From the block's word of net 0 on.
    v: &'a [u64],
    group: usize,
}

impl<'a> Block<'a> {
    fn new(v: &'a [u64], l: Layout, b: usize) -> Self {
        Block {
            v: &v[l.at(b, 0)..],
            group: l.group,
        }
    }

    /// The block's word of net `net`.
    #[inline]
    fn word(self, net: usize) -> u64 {
        self.v[net * self.group]
    }
}

/// The flit on the output nets `o` in lane `bi` of a block of 64 lanes,
/// valid or not.
fn lane_flit(block: Block<'_>, o: &PortNets, bi: usize) -> Flit {
    let bit = |net: usize| (block.word(net) >> bi) & 1;
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

/// The 64 lanes of net `net` from lane `start` on, over `blocks` blocks
/// laid out as `l` (zero outside the lanes).
#[inline]
fn window(v: &[u64], net: usize, blocks: usize, l: Layout, start: isize) -> u64 {
    let word = |k: isize| {
        if k >= 0 && (k as usize) < blocks {
            v[l.at(k as usize, net)]
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
        let l = self.layout;
        for b in 0..self.blocks {
            self.v[l.at(b, self.rst)] = if rst { !0 } else { 0 };
        }
        self.set_local(inject, eject_credit);
        self.gather_links();
        self.gates.cycle(&mut self.v, self.groups, l);
        self.sample();
    }

    /// Read from the lanes: [`NetlistEngine::sample`] keeps only valid flits.
    fn port_out(&self, k: usize) -> Flit {
        let (node, p) = (k / self.ports, k % self.ports);
        let block = Block::new(&self.v, self.layout, node / 64);
        lane_flit(block, &self.outputs[p], node % 64)
    }
}
