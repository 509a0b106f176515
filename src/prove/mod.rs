//! Formal proofs of the generated RTL: property harnesses that
//! SymbiYosys proves ([`crate::flows::sby`]).
//!
//! A harness is a Verilog module with `assume`, `assert` and `$anyconst`
//! (Yosys `read_verilog -formal`) that instantiates one block, assumes the
//! input protocol docs/blocks.md documents and asserts its promises. The
//! references it compares against (occupancy, credit counters, held
//! connections, the routing relation's table) are written in the harness
//! from the documented contract, never taken from the RTL.
//!
//! The proofs are unbounded (IC3/PDR): a pass holds in every reachable
//! state, not only up to a depth. A failing proof is replayed as a
//! bounded model check to [`Proof::cex_depth`] cycles to get a trace.

pub mod blocks;
pub mod liveness;
pub mod order;
pub mod router;
pub mod suite;

/// One proof: the Verilog sources (RTL and harness) and the harness's top
/// module.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Proof {
    /// Name of the proof, also the stem of its `.sby` file and work
    /// directory, e.g. `flow_control_unit_w16_d4`.
    pub name: String,
    /// The harness's top module.
    pub top: String,
    /// Verilog sources as (file name, text), RTL first, harness last.
    pub sources: Vec<(String, String)>,
    /// Depth of the bounded check that looks for a counterexample trace
    /// when the proof fails.
    pub cex_depth: usize,
    /// A bounded check to [`Proof::cex_depth`] cycles instead of an
    /// unbounded proof (the whole router).
    pub bounded: bool,
    /// What the harness asserts, one line per property, for reports.
    pub properties: Vec<String>,
    /// Internal registers the harness reads: (harness wire, the register's
    /// name in the flattened design, e.g. `dut.core.fcu$0.count$q`). Yosys
    /// reads no hierarchical references, so the job flattens the design and
    /// drives each wire from its register (`connect -set`).
    pub probes: Vec<(String, String)>,
    /// Modules of the RTL made formal cut points before the design is
    /// flattened (Yosys `cutpoint`, wildcards allowed): their outputs become
    /// unconstrained in every cycle. That over-approximates the design, so
    /// a safety property proved with the cuts holds without them.
    pub cuts: Vec<String>,
    /// The engine of the `cex` task: `smtbmc z3`, or `abc bmc3` where Z3
    /// takes minutes per step (the whole router).
    pub cex_engine: &'static str,
}

impl Proof {
    /// The text of the source called `file`, if the proof has it.
    pub fn source(&self, file: &str) -> Option<&str> {
        self.sources
            .iter()
            .find(|(f, _)| f == file)
            .map(|(_, t)| t.as_str())
    }

    /// This proof with `from` replaced by `to` once in the source `file`
    /// (a planted bug, for tests that a property can fail), or `None`
    /// when the text is not there.
    pub fn mutated(&self, file: &str, from: &str, to: &str) -> Option<Proof> {
        let mut p = self.clone();
        let slot = p.sources.iter_mut().find(|(f, _)| f == file)?;
        if !slot.1.contains(from) {
            return None;
        }
        slot.1 = slot.1.replacen(from, to, 1);
        p.name.push_str("_mutant");
        Some(p)
    }

    /// The SymbiYosys job: task `prove` (unbounded, ABC's PDR) and task
    /// `cex` (bounded check with smtbmc and Z3, to [`Proof::cex_depth`]),
    /// which writes a VCD trace when a property fails.
    pub fn sby(&self) -> String {
        self.sby_from(&[])
    }

    /// [`Proof::sby`] with some sources taken from elsewhere: `from` maps a
    /// source's file name to the path the job copies it from, relative to
    /// the `.sby` file (an output directory's `prove/` job reads the
    /// router from `../rtl/`).
    pub fn sby_from(&self, from: &[(&str, &str)]) -> String {
        let mut s = String::new();
        s.push_str("[tasks]\nprove\ncex\n\n[options]\n");
        if self.bounded {
            s.push_str("prove: mode bmc\nprove: depth ");
            s.push_str(&format!("{}\n", self.cex_depth));
        } else {
            s.push_str("prove: mode prove\n");
        }
        s.push_str("cex: mode bmc\n");
        s.push_str(&format!("cex: depth {}\n\n", self.cex_depth));
        let engine = if self.bounded { "abc bmc3" } else { "abc pdr" };
        s.push_str(&format!(
            "[engines]\nprove: {engine}\ncex: {}\n\n[script]\n",
            self.cex_engine
        ));
        for (file, _) in &self.sources {
            let sv = if file.ends_with(".sv") { " -sv" } else { "" };
            s.push_str(&format!("read_verilog -formal{sv} {file}\n"));
        }
        if !self.probes.is_empty() || !self.cuts.is_empty() {
            s.push_str(&format!("hierarchy -top {}\nproc\n", self.top));
            for m in &self.cuts {
                s.push_str(&format!("cutpoint {m}\n"));
            }
            s.push_str("flatten\n");
            for (wire, reg) in &self.probes {
                s.push_str(&format!("connect -set {wire} \\{reg}\n"));
            }
        }
        s.push_str(&format!("prep -top {}\n\n[files]\n", self.top));
        for (file, _) in &self.sources {
            match from.iter().find(|(f, _)| f == file) {
                Some((_, path)) => s.push_str(&format!("{file} {path}\n")),
                None => s.push_str(&format!("{file}\n")),
            }
        }
        s
    }
}

/// The proofs `routergen prove` runs for `spec`: every block with a proof
/// at the router's sizes (P, V, W, D, n, addressing, flow control,
/// buffers, path selection; F is 2), skipping those whose proof is not
/// written for this shape (the look-ahead mux's needs a mesh router's
/// port count), then the router's own (credit flow control only): the
/// bounded check, then the unbounded credit, liveness and order proofs.
pub fn spec_proofs(spec: &crate::spec::RouterSpec) -> crate::error::Result<Vec<Proof>> {
    use crate::blocks::{BlockKind, BlockParams};
    use crate::spec::FlowControl;
    let d = BlockParams::default();
    let ports = spec.physical_ports() as usize;
    let params = BlockParams {
        ports,
        vcs: spec.vcs as usize,
        freedom: d.freedom.min(ports),
        flit_width: spec.flit_width as usize,
        dims: spec.dims as usize,
        depth: spec.buffer_depth as usize,
        on_off: spec.flow_control == FlowControl::OnOff,
        buffers: spec.buffers,
        selection: spec.path_selection,
        addressing: spec.addressing,
    };
    let mut list = Vec::new();
    for kind in blocks::PROVED {
        // The VC controller's proof is for credit flow control.
        if kind == BlockKind::VcController && params.on_off {
            continue;
        }
        if kind.check(&params).is_err() {
            continue;
        }
        match blocks::proof(kind, &params) {
            Ok(p) => list.push(p),
            Err(crate::error::Error::InvalidSpec(_)) => {}
            Err(e) => return Err(e),
        }
    }
    if spec.flow_control == FlowControl::Credit {
        list.push(router::proof(spec)?);
        list.extend(router::credit_proof(spec)?);
        list.extend(liveness::proof(spec)?);
        list.extend(order::proof(spec)?);
    }
    Ok(list)
}

/// Verilog text helpers shared by the harness builders.
pub(crate) mod text {
    /// `a[0] + a[1] + ...` style reductions over `n` terms `f(i)`.
    pub fn join(n: usize, sep: &str, f: impl Fn(usize) -> String) -> String {
        let v: Vec<String> = (0..n).map(f).collect();
        if v.is_empty() {
            "1'b0".to_string()
        } else {
            v.join(sep)
        }
    }

    /// The harness prologue: `init` is high in the first cycle only, when
    /// reset is assumed (the blocks' registers have no reset values of
    /// their own that the properties may rely on).
    pub fn init_block() -> &'static str {
        "  reg init = 1'b1;\n  always @(posedge clock) init <= 1'b0;\n  always @(*) if (init) assume(rst);\n"
    }
}
