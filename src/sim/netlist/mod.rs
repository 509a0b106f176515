//! A router as a gate-level netlist for bit-parallel simulation: the Yosys
//! JSON of [`crate::flows::yosys::netlist_json`] read into gates and
//! flip-flops over numbered nets, levelized into [`Program`]s of word
//! operations in which every net is a 64-bit word whose bit lanes are
//! routers (several networks of 64 routers: one block of words each), or
//! compiled to C ([`compiled`]).

pub mod compiled;

use std::collections::BTreeMap;

use crate::error::{Error, Result};

/// Net 0 is the constant 0 (Yosys's `"0"`, and `"x"`/`"z"` bits taken as
/// 0, as Verilator's default two-state initialisation does).
pub const ZERO: u32 = 0;
/// Net 1 is the constant 1 (all lanes set).
pub const ONE: u32 = 1;

/// A combinational cell: Yosys's internal gate cells (`$_AND_`, ...).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Gate {
    /// `Y = A`.
    Buf,
    /// `Y = ~A`.
    Not,
    /// `Y = A & B`.
    And,
    /// `Y = ~(A & B)`.
    Nand,
    /// `Y = A | B`.
    Or,
    /// `Y = ~(A | B)`.
    Nor,
    /// `Y = A ^ B`.
    Xor,
    /// `Y = ~(A ^ B)`.
    Xnor,
    /// `Y = A & ~B`.
    AndNot,
    /// `Y = A | ~B`.
    OrNot,
    /// `Y = S ? B : A`.
    Mux,
}

impl Gate {
    /// The gate of a Yosys cell type, `None` for any other type.
    pub fn of(cell_type: &str) -> Option<Gate> {
        Some(match cell_type {
            "$_BUF_" => Gate::Buf,
            "$_NOT_" => Gate::Not,
            "$_AND_" => Gate::And,
            "$_NAND_" => Gate::Nand,
            "$_OR_" => Gate::Or,
            "$_NOR_" => Gate::Nor,
            "$_XOR_" => Gate::Xor,
            "$_XNOR_" => Gate::Xnor,
            "$_ANDNOT_" => Gate::AndNot,
            "$_ORNOT_" => Gate::OrNot,
            "$_MUX_" => Gate::Mux,
            _ => return None,
        })
    }

    /// The gate's value on words `a`, `b`, `s` (unused inputs ignored).
    #[inline(always)]
    pub fn eval(self, a: u64, b: u64, s: u64) -> u64 {
        match self {
            Gate::Buf => a,
            Gate::Not => !a,
            Gate::And => a & b,
            Gate::Nand => !(a & b),
            Gate::Or => a | b,
            Gate::Nor => !(a | b),
            Gate::Xor => a ^ b,
            Gate::Xnor => !(a ^ b),
            Gate::AndNot => a & !b,
            Gate::OrNot => a | !b,
            Gate::Mux => (a & !s) | (b & s),
        }
    }

    /// Inputs it reads: A; A and B; A, B and S.
    pub fn arity(self) -> usize {
        match self {
            Gate::Buf | Gate::Not => 1,
            Gate::Mux => 3,
            _ => 2,
        }
    }
}

/// One combinational cell: `out = kind(a, b, s)` over nets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cell {
    /// What it computes.
    pub kind: Gate,
    /// Input nets A, B, S ([`ZERO`] where unused).
    pub inputs: [u32; 3],
    /// The net it drives.
    pub out: u32,
}

/// A top-level port: its direction and its nets, least significant bit first.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PortBits {
    /// An input of the module.
    pub input: bool,
    /// Its nets, bit 0 first.
    pub bits: Vec<u32>,
}

/// A rising-edge flip-flop `q <= d` with its initial value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FlipFlop {
    /// The net sampled at the edge.
    pub d: u32,
    /// The net it drives.
    pub q: u32,
    /// Its value before the first edge (the Verilog `initial` value).
    pub init: bool,
}

/// A flattened gate-level module.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Netlist {
    /// Nets, numbered `0..nets` ([`ZERO`] and [`ONE`] included).
    pub nets: usize,
    /// The ports by name.
    pub ports: BTreeMap<String, PortBits>,
    /// The combinational cells.
    pub cells: Vec<Cell>,
    /// The flip-flops, all on the clock port.
    pub flip_flops: Vec<FlipFlop>,
}

/// The first bytes of [`Netlist::to_bytes`] (the format's version).
const MAGIC: &[u8] = b"routergen-netlist-1\n";

fn bad(what: String) -> Error {
    Error::Simulation(format!("the router's netlist: {what}"))
}

/// A bit of a Yosys connection: a net number (2 and up) or a constant.
fn bit(v: &serde_json::Value) -> Result<u32> {
    match v {
        serde_json::Value::Number(n) => n
            .as_u64()
            .filter(|&n| (2..u64::from(u32::MAX)).contains(&n))
            .map(|n| n as u32)
            .ok_or_else(|| bad(format!("bit {n} is not a net number"))),
        serde_json::Value::String(s) => match s.as_str() {
            "1" => Ok(ONE),
            "0" | "x" | "z" => Ok(ZERO),
            other => Err(bad(format!("constant bit {other:?}"))),
        },
        other => Err(bad(format!("bit {other} is neither a net nor a constant"))),
    }
}

fn bits(v: Option<&serde_json::Value>, what: &str) -> Result<Vec<u32>> {
    v.and_then(|b| b.as_array())
        .ok_or_else(|| bad(format!("{what} has no bits")))?
        .iter()
        .map(bit)
        .collect()
}

impl Netlist {
    /// Reads module `top` of Yosys `write_json` output whose clock is the
    /// port `clock`. Refuses cells other than Yosys's gates and `$_DFF_P_`
    /// on `clock`, and nets driven twice.
    pub fn from_yosys_json(text: &str, top: &str, clock: &str) -> Result<Netlist> {
        let v: serde_json::Value =
            serde_json::from_str(text).map_err(|e| bad(format!("unreadable JSON: {e}")))?;
        let m = v
            .get("modules")
            .and_then(|m| m.get(top))
            .ok_or_else(|| bad(format!("no module {top}")))?;
        let mut ports = BTreeMap::new();
        let mut top_net = 1u32;
        for (name, p) in m
            .get("ports")
            .and_then(|p| p.as_object())
            .ok_or_else(|| bad("no ports".into()))?
        {
            let input = match p.get("direction").and_then(|d| d.as_str()) {
                Some("input") => true,
                Some("output") => false,
                d => return Err(bad(format!("port {name} has direction {d:?}"))),
            };
            let bits = bits(p.get("bits"), &format!("port {name}"))?;
            top_net = bits.iter().copied().fold(top_net, u32::max);
            ports.insert(name.clone(), PortBits { input, bits });
        }
        let clk = match ports.get(clock).map(|p| p.bits.as_slice()) {
            Some([c]) => *c,
            _ => return Err(bad(format!("no one-bit clock port {clock}"))),
        };
        let mut cells = Vec::new();
        let mut ffs = Vec::new();
        for (name, c) in m
            .get("cells")
            .and_then(|c| c.as_object())
            .ok_or_else(|| bad("no cells".into()))?
        {
            let ty = c.get("type").and_then(|t| t.as_str()).unwrap_or("");
            let conn = c.get("connections");
            let pin = |p: &str| -> Result<u32> {
                match bits(conn.and_then(|k| k.get(p)), &format!("cell {name} pin {p}"))?[..] {
                    [b] => Ok(b),
                    _ => Err(bad(format!("cell {name} pin {p} is not one bit"))),
                }
            };
            if ty == "$_DFF_P_" {
                if pin("C")? != clk {
                    return Err(bad(format!("flip-flop {name} is not clocked by {clock}")));
                }
                let (d, q) = (pin("D")?, pin("Q")?);
                top_net = top_net.max(d).max(q);
                ffs.push(FlipFlop { d, q, init: false });
                continue;
            }
            let kind = Gate::of(ty).ok_or_else(|| {
                bad(format!(
                    "cell {name} of type {ty} (the netlist engine takes Yosys's gates and \
                     $_DFF_P_ only)"
                ))
            })?;
            let mut inputs = [ZERO; 3];
            for (i, p) in ["A", "B", "S"].iter().take(kind.arity()).enumerate() {
                inputs[i] = pin(p)?;
            }
            let out = pin("Y")?;
            top_net = inputs.iter().copied().fold(top_net.max(out), u32::max);
            cells.push(Cell { kind, inputs, out });
        }
        // Initial values: the `init` attribute of the nets flip-flops drive
        // (a string of bits, most significant first).
        let mut init = BTreeMap::new();
        for (name, n) in m
            .get("netnames")
            .and_then(|n| n.as_object())
            .into_iter()
            .flatten()
        {
            let Some(text) = n
                .get("attributes")
                .and_then(|a| a.get("init"))
                .and_then(|i| i.as_str())
            else {
                continue;
            };
            let nets = bits(n.get("bits"), &format!("net {name}"))?;
            for (b, ch) in nets.iter().zip(text.chars().rev()) {
                if ch == '1' {
                    init.insert(*b, true);
                }
            }
        }
        for f in &mut ffs {
            f.init = init.get(&f.q).copied().unwrap_or(false);
        }
        let n = Netlist {
            nets: top_net as usize + 1,
            ports,
            cells,
            flip_flops: ffs,
        };
        n.check_drivers(clk)?;
        Ok(n)
    }

    /// The same netlist with net `x` renamed `new[x]` (`new` a permutation
    /// of `0..nets` keeping [`ZERO`] and [`ONE`]); the cells and flip-flops
    /// stay in their order.
    pub fn renumbered(&self, new: &[u32]) -> Netlist {
        let r = |x: u32| new[x as usize];
        Netlist {
            nets: self.nets,
            ports: self
                .ports
                .iter()
                .map(|(name, p)| {
                    let bits = p.bits.iter().map(|&b| r(b)).collect();
                    (name.clone(), PortBits { bits, ..*p })
                })
                .collect(),
            cells: self
                .cells
                .iter()
                .map(|c| Cell {
                    inputs: c.inputs.map(r),
                    out: r(c.out),
                    ..*c
                })
                .collect(),
            flip_flops: self
                .flip_flops
                .iter()
                .map(|f| FlipFlop {
                    d: r(f.d),
                    q: r(f.q),
                    ..*f
                })
                .collect(),
        }
    }

    /// The netlist in a compact binary form ([`Netlist::from_bytes`]), for
    /// the cache: reading it back takes far less than reading the JSON.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut b = MAGIC.to_vec();
        let put = |b: &mut Vec<u8>, x: u32| b.extend_from_slice(&x.to_le_bytes());
        put(&mut b, self.nets as u32);
        put(&mut b, self.ports.len() as u32);
        for (name, p) in &self.ports {
            put(&mut b, name.len() as u32);
            b.extend_from_slice(name.as_bytes());
            // Padded to whole words.
            b.resize(b.len().div_ceil(4) * 4, 0);
            put(&mut b, u32::from(p.input));
            put(&mut b, p.bits.len() as u32);
            for &x in &p.bits {
                put(&mut b, x);
            }
        }
        put(&mut b, self.cells.len() as u32);
        for c in &self.cells {
            put(&mut b, c.kind as u32);
            for x in c.inputs.into_iter().chain([c.out]) {
                put(&mut b, x);
            }
        }
        put(&mut b, self.flip_flops.len() as u32);
        for f in &self.flip_flops {
            for x in [f.d, f.q, u32::from(f.init)] {
                put(&mut b, x);
            }
        }
        b
    }

    /// The netlist of [`Netlist::to_bytes`]; an error if `b` is not one.
    pub fn from_bytes(b: &[u8]) -> Result<Netlist> {
        let short = || bad("the cached netlist is cut short".into());
        let body = b.strip_prefix(MAGIC).ok_or_else(short)?;
        let mut words = body
            .chunks_exact(4)
            .map(|w| u32::from_le_bytes([w[0], w[1], w[2], w[3]]));
        let mut next = || words.next().ok_or_else(short);
        let nets = next()? as usize;
        let mut ports = BTreeMap::new();
        for _ in 0..next()? {
            let len = next()? as usize;
            let mut name = Vec::with_capacity(len);
            for _ in 0..len.div_ceil(4) {
                name.extend_from_slice(&next()?.to_le_bytes());
            }
            name.truncate(len);
            let name = String::from_utf8(name).map_err(|_| short())?;
            let input = next()? == 1;
            let bits = (0..next()?).map(|_| next()).collect::<Result<Vec<_>>>()?;
            ports.insert(name, PortBits { input, bits });
        }
        let kinds = [
            Gate::Buf,
            Gate::Not,
            Gate::And,
            Gate::Nand,
            Gate::Or,
            Gate::Nor,
            Gate::Xor,
            Gate::Xnor,
            Gate::AndNot,
            Gate::OrNot,
            Gate::Mux,
        ];
        let mut cells = Vec::new();
        for _ in 0..next()? {
            let kind = *kinds.get(next()? as usize).ok_or_else(short)?;
            let inputs = [next()?, next()?, next()?];
            cells.push(Cell {
                kind,
                inputs,
                out: next()?,
            });
        }
        let mut flip_flops = Vec::new();
        for _ in 0..next()? {
            flip_flops.push(FlipFlop {
                d: next()?,
                q: next()?,
                init: next()? == 1,
            });
        }
        let n = Netlist {
            nets,
            ports,
            cells,
            flip_flops,
        };
        let top = n
            .cells
            .iter()
            .flat_map(|c| c.inputs.into_iter().chain([c.out]))
            .chain(n.flip_flops.iter().flat_map(|f| [f.d, f.q]))
            .chain(n.ports.values().flat_map(|p| p.bits.iter().copied()))
            .max()
            .unwrap_or(0);
        if top as usize >= n.nets {
            return Err(short());
        }
        Ok(n)
    }

    /// Every net has at most one driver: an input port, a cell or a
    /// flip-flop; the constants none.
    fn check_drivers(&self, clk: u32) -> Result<()> {
        let mut driven = vec![false; self.nets];
        driven[ZERO as usize] = true;
        driven[ONE as usize] = true;
        driven[clk as usize] = true;
        let mut drive = |net: u32, by: &dyn Fn() -> String| -> Result<()> {
            if std::mem::replace(&mut driven[net as usize], true) {
                return Err(bad(format!("net {net} is driven twice (by {})", by())));
            }
            Ok(())
        };
        for (name, p) in &self.ports {
            if p.input && p.bits[..] != [clk] {
                for &b in &p.bits {
                    drive(b, &|| format!("input {name}"))?;
                }
            }
        }
        for c in &self.cells {
            drive(c.out, &|| format!("a {:?} cell", c.kind))?;
        }
        for f in &self.flip_flops {
            drive(f.q, &|| "a flip-flop".into())?;
        }
        Ok(())
    }

    /// The cells in an order in which each cell comes after the cells
    /// driving its inputs (levels; within a level by gate kind, so that
    /// runs of one kind evaluate without a branch per gate). An error
    /// names a net on a combinational loop.
    pub fn levelize(&self) -> Result<Vec<Vec<usize>>> {
        let mut driver = vec![usize::MAX; self.nets];
        for (i, c) in self.cells.iter().enumerate() {
            driver[c.out as usize] = i;
        }
        // Iterative depth-first search: level = 1 + the deepest driver.
        let mut level = vec![0u32; self.cells.len()];
        let mut state = vec![0u8; self.cells.len()]; // 0 new, 1 on stack, 2 done
        let mut stack: Vec<(usize, usize)> = Vec::new();
        for root in 0..self.cells.len() {
            if state[root] != 0 {
                continue;
            }
            state[root] = 1;
            stack.push((root, 0));
            while let Some(&mut (c, ref mut k)) = stack.last_mut() {
                let cell = &self.cells[c];
                if *k < cell.kind.arity() {
                    let net = cell.inputs[*k] as usize;
                    *k += 1;
                    let d = driver[net];
                    if d == usize::MAX {
                        continue;
                    }
                    match state[d] {
                        0 => {
                            state[d] = 1;
                            stack.push((d, 0));
                        }
                        1 => return Err(bad(format!("a combinational loop through net {net}"))),
                        _ => {}
                    }
                    continue;
                }
                let l = cell.inputs[..cell.kind.arity()]
                    .iter()
                    .map(|&n| driver[n as usize])
                    .filter(|&d| d != usize::MAX)
                    .map(|d| level[d] + 1)
                    .max()
                    .unwrap_or(0);
                level[c] = l;
                state[c] = 2;
                stack.pop();
            }
        }
        let depth = level.iter().copied().max().map_or(0, |l| l as usize + 1);
        let mut levels = vec![Vec::new(); depth];
        for (i, &l) in level.iter().enumerate() {
            levels[l as usize].push(i);
        }
        for l in &mut levels {
            l.sort_by_key(|&i| self.cells[i].kind);
        }
        Ok(levels)
    }

    /// The cells whose outputs reach any of `nets` (their fan-in cone).
    pub fn cone(&self, nets: impl IntoIterator<Item = u32>) -> Vec<bool> {
        let mut driver = vec![usize::MAX; self.nets];
        for (i, c) in self.cells.iter().enumerate() {
            driver[c.out as usize] = i;
        }
        let mut inside = vec![false; self.cells.len()];
        let mut todo: Vec<u32> = nets.into_iter().collect();
        while let Some(n) = todo.pop() {
            let d = driver[n as usize];
            if d == usize::MAX || inside[d] {
                continue;
            }
            inside[d] = true;
            let c = &self.cells[d];
            todo.extend_from_slice(&c.inputs[..c.kind.arity()]);
        }
        inside
    }

    /// Per cell: whether any of the nets `from` reaches it.
    pub fn reached_from(&self, from: impl IntoIterator<Item = u32>) -> Vec<bool> {
        let mut readers: Vec<Vec<usize>> = vec![Vec::new(); self.nets];
        for (i, c) in self.cells.iter().enumerate() {
            for &n in &c.inputs[..c.kind.arity()] {
                readers[n as usize].push(i);
            }
        }
        let mut reached = vec![false; self.cells.len()];
        let mut todo: Vec<u32> = from.into_iter().collect();
        while let Some(n) = todo.pop() {
            for &r in &readers[n as usize] {
                if !reached[r] {
                    reached[r] = true;
                    todo.push(self.cells[r].out);
                }
            }
        }
        reached
    }
}

/// One word operation of a [`Program`]: `out = kind(a, b, s)`, the
/// operands as nets (words of a block).
#[derive(Debug, Clone, Copy)]
pub struct Op {
    a: u32,
    b: u32,
    s: u32,
    out: u32,
}

/// Cells in evaluation order as runs of one gate kind: an interpreted op
/// list over the nets' words.
#[derive(Debug, Clone, Default)]
pub struct Program {
    runs: Vec<(Gate, usize, usize)>,
    ops: Vec<Op>,
    /// One past the last word any op touches.
    end: usize,
}

impl Program {
    /// The cells `order` of `n` (already in evaluation order), over one
    /// block of words in which word `net` holds that net's lanes.
    pub fn new(n: &Netlist, order: &[usize]) -> Program {
        let mut p = Program::default();
        for &i in order {
            let c = &n.cells[i];
            match p.runs.last_mut() {
                Some((k, _, end)) if *k == c.kind => *end += 1,
                _ => p.runs.push((c.kind, p.ops.len(), p.ops.len() + 1)),
            }
            let top = c.inputs.iter().copied().fold(c.out, u32::max);
            p.end = p.end.max(top as usize + 1);
            p.ops.push(Op {
                a: c.inputs[0],
                b: c.inputs[1],
                s: c.inputs[2],
                out: c.out,
            });
        }
        p
    }

    /// Word operations per evaluation (per block).
    pub fn len(&self) -> usize {
        self.ops.len()
    }

    /// Whether there is nothing to evaluate.
    pub fn is_empty(&self) -> bool {
        self.ops.is_empty()
    }

    /// Evaluates every op in order on the block `v`. Panics if `v` is
    /// shorter than the nets the program touches.
    pub fn eval(&self, v: &mut [u64]) {
        assert!(v.len() >= self.end, "the nets are shorter than the program");
        for &(kind, lo, hi) in &self.runs {
            let ops = &self.ops[lo..hi];
            // One loop per kind: the kind is a constant inside it.
            macro_rules! run {
                ($k:expr) => {
                    for op in ops {
                        let (a, b, s, o) =
                            (op.a as usize, op.b as usize, op.s as usize, op.out as usize);
                        // SAFETY: every op's words lie below `self.end`,
                        // checked against `v.len()` above.
                        unsafe {
                            let x = $k.eval(
                                *v.get_unchecked(a),
                                *v.get_unchecked(b),
                                *v.get_unchecked(s),
                            );
                            *v.get_unchecked_mut(o) = x;
                        }
                    }
                };
            }
            match kind {
                Gate::Buf => run!(Gate::Buf),
                Gate::Not => run!(Gate::Not),
                Gate::And => run!(Gate::And),
                Gate::Nand => run!(Gate::Nand),
                Gate::Or => run!(Gate::Or),
                Gate::Nor => run!(Gate::Nor),
                Gate::Xor => run!(Gate::Xor),
                Gate::Xnor => run!(Gate::Xnor),
                Gate::AndNot => run!(Gate::AndNot),
                Gate::OrNot => run!(Gate::OrNot),
                Gate::Mux => run!(Gate::Mux),
            }
        }
    }
}
