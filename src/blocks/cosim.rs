//! One co-simulation mechanism for every block: the same seeded random
//! stimulus drives the rust-hdl model (manual clock loop) and a Verilator
//! build of the emitted Verilog; every output is compared on every cycle.

use rust_hdl::prelude::*;

use crate::flows::verilator::{Port, Simulator};
use crate::flows::ToolError;

/// A top-level input the harness can set from a number.
pub trait InputSignal {
    /// Sets the signal's next value from the low bits of `value`.
    fn poke(&mut self, value: u64);
    /// Marks the signal as driven from outside the block (rust-hdl's
    /// `connect`).
    fn claim(&mut self);
    /// rust-hdl's identifier of the signal.
    fn signal_id(&self) -> usize;
}

impl InputSignal for Signal<In, Bit> {
    fn poke(&mut self, value: u64) {
        self.next = value & 1 == 1;
    }
    fn claim(&mut self) {
        self.connect();
    }
    fn signal_id(&self) -> usize {
        Atom::id(self)
    }
}

impl<const N: usize> InputSignal for Signal<In, Bits<N>> {
    fn poke(&mut self, value: u64) {
        let masked = if N >= 64 {
            value
        } else {
            value & ((1u64 << N) - 1)
        };
        self.next = Bits::<N>::from(masked);
    }
    fn claim(&mut self) {
        self.connect();
    }
    fn signal_id(&self) -> usize {
        Atom::id(self)
    }
}

/// Calls `f` on every signal of a Vec field.
pub fn each<S: InputSignal>(v: &mut [S], f: &mut dyn FnMut(&mut dyn InputSignal)) {
    for s in v.iter_mut() {
        f(s);
    }
}

/// What the harness needs from a block: its clock and its other inputs.
pub trait HwBlock: Block {
    /// The clock, for blocks with state; `None` for combinational blocks.
    fn clock_mut(&mut self) -> Option<&mut Signal<In, Clock>>;
    /// Every top-level input except the clock (any order).
    fn visit_inputs(&mut self, f: &mut dyn FnMut(&mut dyn InputSignal));
    /// Probability that a one-bit input named `name` is 1 in random
    /// stimulus; `None` for the default (1/2; 1/64 for `rst`).
    fn bias(&self, _name: &str) -> Option<f64> {
        None
    }
    /// Random values of the multi-bit input `name` are taken modulo this
    /// limit (e.g. port numbers below P); `None` for the full range.
    fn value_limit(&self, _name: &str) -> Option<u64> {
        None
    }
}

/// Marks every top-level input driven and connects the block, ready for
/// simulation or Verilog generation.
pub fn prepare<B: HwBlock>(block: &mut B) {
    if let Some(c) = block.clock_mut() {
        c.connect();
    }
    block.visit_inputs(&mut |s| s.claim());
    block.connect_all();
}

#[derive(Debug, Clone)]
struct PortAtom {
    port: Port,
    id: usize,
    value: u64,
}

#[derive(Default)]
struct PortProbe {
    depth: usize,
    atoms: Vec<PortAtom>,
}

fn literal_value(atom: &dyn Atom) -> u64 {
    let text = format!("{:x}", atom.verilog());
    let hex = text.split("'h").nth(1).unwrap_or("0");
    u64::from_str_radix(hex, 16).unwrap_or(0)
}

impl Probe for PortProbe {
    fn visit_start_scope(&mut self, _name: &str, _node: &dyn Block) {
        self.depth += 1;
    }
    fn visit_end_scope(&mut self, _name: &str, _node: &dyn Block) {
        self.depth -= 1;
    }
    fn visit_atom(&mut self, name: &str, signal: &dyn Atom) {
        if self.depth != 1 {
            return;
        }
        let input = match signal.kind() {
            AtomKind::InputParameter => true,
            AtomKind::OutputParameter => false,
            _ => return,
        };
        self.atoms.push(PortAtom {
            port: Port {
                // As the Verilog writer spells it (`in_data_0` for `in_data$0`).
                name: name.replace('$', "_"),
                width: signal.bits(),
                input,
            },
            id: signal.id(),
            value: literal_value(signal),
        });
    }
}

fn probe<B: Block>(block: &B) -> Vec<PortAtom> {
    let mut p = PortProbe::default();
    block.accept("top", &mut p);
    p.atoms
}

/// The top-level ports of `block`, in Verilog declaration order, named as
/// in the Verilog ([`crate::hdl`]).
pub fn ports<B: Block>(block: &B) -> Vec<Port> {
    probe(block).into_iter().map(|a| a.port).collect()
}

/// Splitmix64: a small seeded generator for reproducible stimulus.
#[derive(Debug, Clone)]
pub struct SplitMix64(u64);

impl SplitMix64 {
    /// A generator started from `seed`.
    pub fn new(seed: u64) -> Self {
        SplitMix64(seed)
    }
    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    /// True with probability `p`.
    pub fn chance(&mut self, p: f64) -> bool {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64 <= p
    }
}

/// `cycles` rows of random values for the non-clock inputs of `block`
/// (in port order). `rst` is held high in cycle 0.
pub fn random_stimulus<B: HwBlock>(
    block: &B,
    clock: &str,
    cycles: usize,
    seed: u64,
) -> Vec<Vec<u64>> {
    let inputs: Vec<Port> = ports(block)
        .into_iter()
        .filter(|p| p.input && p.name != clock)
        .collect();
    let mut rng = SplitMix64::new(seed);
    (0..cycles)
        .map(|c| {
            inputs
                .iter()
                .map(|p| {
                    if p.width == 1 {
                        let bias = block.bias(&p.name).unwrap_or(if p.name == "rst" {
                            1.0 / 64.0
                        } else {
                            0.5
                        });
                        let on = if p.name == "rst" && c == 0 {
                            true
                        } else {
                            rng.chance(bias)
                        };
                        u64::from(on)
                    } else {
                        let v = rng.next_u64();
                        if let Some(limit) = block.value_limit(&p.name).filter(|&l| l > 0) {
                            v % limit
                        } else if p.width >= 64 {
                            v
                        } else {
                            v & ((1u64 << p.width) - 1)
                        }
                    }
                })
                .collect()
        })
        .collect()
}

/// Runs the rust-hdl model of a prepared `block` on `stimulus` (rows of
/// non-clock input values in port order) with the same cycle protocol as
/// the Verilator harness: inputs applied with the clock low, outputs
/// sampled, then a rising clock edge. Returns the outputs of every cycle.
pub fn run_model<B: HwBlock>(block: &mut B, stimulus: &[Vec<u64>]) -> Vec<Vec<u64>> {
    let atoms = probe(block);
    let clock_id = block.clock_mut().map(|c| Atom::id(&*c));
    let input_ids: Vec<usize> = atoms
        .iter()
        .filter(|a| a.port.input && Some(a.id) != clock_id)
        .map(|a| a.id)
        .collect();
    let mut rows = Vec::with_capacity(stimulus.len());
    for row in stimulus {
        block.visit_inputs(&mut |s| {
            if let Some(k) = input_ids.iter().position(|&id| id == s.signal_id()) {
                s.poke(row.get(k).copied().unwrap_or(0));
            }
        });
        if let Some(c) = block.clock_mut() {
            c.next = Clock::from(false);
        }
        simulate(block, 1000);
        rows.push(
            probe(block)
                .into_iter()
                .filter(|a| !a.port.input)
                .map(|a| a.value)
                .collect(),
        );
        if let Some(c) = block.clock_mut() {
            c.next = Clock::from(true);
            simulate(block, 1000);
        }
    }
    rows
}

/// The first disagreement between the model and the Verilog.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mismatch {
    /// The cycle, from 0.
    pub cycle: usize,
    /// The output port that differs.
    pub signal: String,
    /// Its value in the rust-hdl model.
    pub model: u64,
    /// Its value in the Verilog.
    pub verilog: u64,
}

impl std::fmt::Display for Mismatch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "cycle {}: {} is {:#x} in the rust-hdl model, {:#x} in the Verilog",
            self.cycle, self.signal, self.model, self.verilog
        )
    }
}

/// Compares two output traces; `None` when they agree everywhere.
pub fn compare(outputs: &[Port], model: &[Vec<u64>], verilog: &[Vec<u64>]) -> Option<Mismatch> {
    let names: Vec<&Port> = outputs.iter().filter(|p| !p.input).collect();
    for (cycle, (m, v)) in model.iter().zip(verilog).enumerate() {
        for (k, port) in names.iter().enumerate() {
            let (a, b) = (m.get(k).copied(), v.get(k).copied());
            if a != b {
                return Some(Mismatch {
                    cycle,
                    signal: port.name.clone(),
                    model: a.unwrap_or(u64::MAX),
                    verilog: b.unwrap_or(u64::MAX),
                });
            }
        }
    }
    if model.len() != verilog.len() {
        return Some(Mismatch {
            cycle: model.len().min(verilog.len()),
            signal: "(trace length)".into(),
            model: model.len() as u64,
            verilog: verilog.len() as u64,
        });
    }
    None
}

/// One design under co-simulation: its Verilog, the stimulus and what
/// the rust-hdl model produced from it.
#[derive(Debug, Clone)]
pub struct Variant {
    /// The top module's name.
    pub top: String,
    /// The design's Verilog.
    pub verilog: String,
    /// The top module's ports, in the order of the stimulus and traces.
    pub ports: Vec<Port>,
    /// Per cycle, the value of each input.
    pub stimulus: Vec<Vec<u64>>,
    /// Per cycle, the value of each output in the rust-hdl model.
    pub model: Vec<Vec<u64>>,
}

impl Variant {
    /// Runs the prepared `block` on `cycles` cycles of random stimulus from
    /// `seed`; `verilog` (top module `top`) is to be compared with it.
    pub fn new<B: HwBlock>(
        block: &mut B,
        verilog: &str,
        top: &str,
        cycles: usize,
        seed: u64,
    ) -> Variant {
        let ports = ports(block);
        let stimulus = random_stimulus(block, "clock", cycles, seed);
        let model = run_model(block, &stimulus);
        Variant {
            top: top.to_string(),
            verilog: verilog.to_string(),
            ports,
            stimulus,
            model,
        }
    }
}

/// A wrapper module `cosim_top` that instantiates every variant (whose
/// module names must differ) with ports prefixed `s<k>_`, sharing the clock.
pub fn wrapper(variants: &[Variant]) -> (String, Vec<Port>) {
    let mut ports = vec![Port {
        name: "clock".into(),
        width: 1,
        input: true,
    }];
    let mut body = String::new();
    for (k, v) in variants.iter().enumerate() {
        let mut conns = Vec::new();
        for p in &v.ports {
            if p.name == "clock" {
                conns.push(".clock(clock)".to_string());
                continue;
            }
            let outer = format!("s{k}_{}", p.name);
            conns.push(format!(".{}({outer})", p.name));
            ports.push(Port {
                name: outer,
                width: p.width,
                input: p.input,
            });
        }
        body.push_str(&format!(
            "    {} s{k}(\n        {}\n    );\n",
            v.top,
            conns.join(",\n        ")
        ));
    }
    let names: Vec<&str> = ports.iter().map(|p| p.name.as_str()).collect();
    let mut text = format!("module cosim_top({});\n", names.join(","));
    for p in &ports {
        let dir = if p.input { "input wire" } else { "output wire" };
        let range = if p.width > 1 {
            format!(" [{}:0]", p.width - 1)
        } else {
            String::new()
        };
        text.push_str(&format!("    {dir}{range} {};\n", p.name));
    }
    text.push_str(&body);
    text.push_str("endmodule\n");
    (text, ports)
}

/// Builds all `variants` into one Verilator model (one build, however many
/// parameter sets) and compares every output of every variant on every
/// cycle. `Ok(None)` when all agree, else the variant's top module and
/// its first mismatch.
pub fn cosimulate_all(variants: &[Variant]) -> Result<Option<(String, Mismatch)>, ToolError> {
    let (wrap, ports) = wrapper(variants);
    let mut design: String = variants
        .iter()
        .map(|v| v.verilog.as_str())
        .collect::<Vec<_>>()
        .join("\n");
    design.push('\n');
    design.push_str(&wrap);
    let cycles = variants.iter().map(|v| v.stimulus.len()).max().unwrap_or(0);
    let stimulus: Vec<Vec<u64>> = (0..cycles)
        .map(|c| {
            variants
                .iter()
                .flat_map(|v| v.stimulus.get(c).cloned().unwrap_or_default())
                .collect()
        })
        .collect();
    let sim = Simulator::build(&design, "cosim_top", &ports, "clock")?;
    let out = sim.run(&stimulus)?;
    let mut offset = 0;
    for v in variants {
        let n = v.ports.iter().filter(|p| !p.input).count();
        let mine: Vec<Vec<u64>> = out
            .iter()
            .take(v.stimulus.len())
            .map(|row| {
                row.get(offset..offset + n)
                    .map(<[u64]>::to_vec)
                    .unwrap_or_default()
            })
            .collect();
        if let Some(m) = compare(&v.ports, &v.model, &mine) {
            return Ok(Some((v.top.clone(), m)));
        }
        offset += n;
    }
    Ok(None)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn port(name: &str, input: bool) -> Port {
        Port {
            name: name.into(),
            width: 4,
            input,
        }
    }

    #[test]
    fn compare_reports_the_first_differing_cycle_and_signal() {
        let ports = vec![port("a_in", true), port("x", false), port("y", false)];
        let model = vec![vec![1, 2], vec![3, 4], vec![5, 6], vec![7, 8]];
        assert_eq!(compare(&ports, &model, &model.clone()), None);
        let mut verilog = model.clone();
        verilog[2][1] = 9;
        verilog[3][0] = 0;
        assert_eq!(
            compare(&ports, &model, &verilog),
            Some(Mismatch {
                cycle: 2,
                signal: "y".into(),
                model: 6,
                verilog: 9
            })
        );
        verilog.truncate(2);
        let m = compare(&ports, &model, &verilog).expect("a short trace differs");
        assert_eq!((m.cycle, m.signal.as_str()), (2, "(trace length)"));
    }

    #[test]
    fn splitmix_is_reproducible_and_spreads() {
        let a: Vec<u64> = (0..4)
            .scan(SplitMix64::new(7), |r, _| Some(r.next_u64()))
            .collect();
        let b: Vec<u64> = (0..4)
            .scan(SplitMix64::new(7), |r, _| Some(r.next_u64()))
            .collect();
        assert_eq!(a, b);
        let mut r = SplitMix64::new(1);
        let ones = (0..10_000).filter(|_| r.chance(0.25)).count();
        assert!((2_200..2_800).contains(&ones), "{ones}");
    }

    #[test]
    fn wrapper_prefixes_every_port_but_the_clock() {
        let v = Variant {
            top: "blk_a".into(),
            verilog: String::new(),
            ports: vec![port("clock", true), port("d$0", true), port("q", false)],
            stimulus: Vec::new(),
            model: Vec::new(),
        };
        let (text, ports) = wrapper(&[
            v.clone(),
            Variant {
                top: "blk_b".into(),
                ..v
            },
        ]);
        let names: Vec<&str> = ports.iter().map(|p| p.name.as_str()).collect();
        assert_eq!(names, ["clock", "s0_d$0", "s0_q", "s1_d$0", "s1_q"]);
        assert!(text.contains("blk_a s0("));
        assert!(text.contains(".d$0(s1_d$0)"));
        assert!(text.contains("output wire [3:0] s1_q;"));
    }
}
