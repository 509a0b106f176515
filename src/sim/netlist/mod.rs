//! A router as a gate-level netlist for bit-parallel simulation: the Yosys
//! JSON of [`crate::flows::yosys::netlist_json`] read into gates and
//! flip-flops over numbered nets, levelized into [`Program`]s of word
//! operations in which every net is one or more 64-bit words whose bit
//! lanes are routers.

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
/// operands as offsets of the nets' first words.
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
    /// The cells `order` of `n` (already in evaluation order), for nets of
    /// `words` words each.
    pub fn new(n: &Netlist, order: &[usize], words: usize) -> Program {
        let mut p = Program::default();
        let off = |net: u32| (net as usize * words) as u32;
        for &i in order {
            let c = &n.cells[i];
            match p.runs.last_mut() {
                Some((k, _, end)) if *k == c.kind => *end += 1,
                _ => p.runs.push((c.kind, p.ops.len(), p.ops.len() + 1)),
            }
            let top = c.inputs.iter().copied().fold(c.out, u32::max);
            p.end = p.end.max(off(top) as usize + words);
            p.ops.push(Op {
                a: off(c.inputs[0]),
                b: off(c.inputs[1]),
                s: off(c.inputs[2]),
                out: off(c.out),
            });
        }
        p
    }

    /// Word operations per evaluation (per word of lanes).
    pub fn len(&self) -> usize {
        self.ops.len()
    }

    /// Whether there is nothing to evaluate.
    pub fn is_empty(&self) -> bool {
        self.ops.is_empty()
    }

    /// Evaluates every op in order on `v`, nets of `words` words (the
    /// words the program was built for). Panics if `v` is too short.
    pub fn eval(&self, v: &mut [u64], words: usize) {
        assert!(v.len() >= self.end, "the nets are shorter than the program");
        match words {
            1 => self.eval_n::<1>(v),
            2 => self.eval_n::<2>(v),
            4 => self.eval_n::<4>(v),
            _ => {
                for &(kind, lo, hi) in &self.runs {
                    for op in &self.ops[lo..hi] {
                        let (a, b, s, o) =
                            (op.a as usize, op.b as usize, op.s as usize, op.out as usize);
                        for i in 0..words {
                            v[o + i] = kind.eval(v[a + i], v[b + i], v[s + i]);
                        }
                    }
                }
            }
        }
    }

    fn eval_n<const W: usize>(&self, v: &mut [u64]) {
        for &(kind, lo, hi) in &self.runs {
            let ops = &self.ops[lo..hi];
            // One loop per kind: the kind is a constant inside it.
            macro_rules! run {
                ($k:expr) => {
                    for op in ops {
                        let (a, b, s, o) =
                            (op.a as usize, op.b as usize, op.s as usize, op.out as usize);
                        for i in 0..W {
                            // SAFETY: every op's words lie below
                            // `self.end`, which `eval` checked against
                            // `v.len()`.
                            unsafe {
                                let x = $k.eval(
                                    *v.get_unchecked(a + i),
                                    *v.get_unchecked(b + i),
                                    *v.get_unchecked(s + i),
                                );
                                *v.get_unchecked_mut(o + i) = x;
                            }
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
