//! The Verilator engine: the emitted Verilog of one router compiled by
//! Verilator with a small C++ shim into a shared object, loaded into this
//! process; the shim holds one Verilated model per node and wires them by
//! the link table of [`Wiring`]. A cycle evaluates every router once (its
//! new inputs, then the rising edge; see [`clock_wrapper`]) reading its
//! link inputs from the outputs sampled before the cycle, so no router
//! sees a neighbour's next state early and the routers can be evaluated on
//! several threads (`--threads`) with the same result.
//! Builds are cached by a hash of the Verilog, the shim, the Verilator
//! configuration, the arguments and the Verilator release: one build per
//! router configuration, whatever the network size.

use std::ffi::{c_int, c_void};
use std::fmt::Write as _;
use std::hash::{Hash, Hasher};
use std::path::PathBuf;

use super::network::{node_id, split, threads, Engine, Flit, Outputs, Wiring, Workers};
use crate::error::{Error, Result};
use crate::router::tables::CompiledTable;
use crate::router::{core_verilog_of, node_id_bits_of, top_verilog_of};
use crate::spec::RouterSpec;

/// A simulation-only module `<top>_tick` around the router `top` (whose
/// Verilog, `top_verilog`, is used unchanged): the same ports, but `clk`
/// replaced by `tick`, which the caller flips once per cycle. The router's
/// clock is `tick ^ tick_d`, and `tick_d` follows `tick` on that clock, so
/// each flip makes one rising edge that falls again within the same
/// evaluation. One Verilator `eval` per cycle then settles the new inputs
/// and applies the edge; a clock input needs two (low, then high), and
/// Verilator evaluates the logic in the inputs' cone on each of them.
pub fn clock_wrapper(top: &str, top_verilog: &str) -> Result<String> {
    let ports = crate::emit::module_ports(top_verilog, top)
        .ok_or_else(|| Error::Simulation(format!("no port list of module {top} to wrap")))?;
    if !ports.iter().any(|(name, input, _)| name == "clk" && *input) {
        return Err(Error::Simulation(format!("module {top} has no clk input")));
    }
    let mut decls = Vec::new();
    let mut conns = Vec::new();
    for (name, input, width) in &ports {
        let dir = if *input { "input" } else { "output" };
        let range = if *width > 1 {
            format!("[{}:0] ", width - 1)
        } else {
            String::new()
        };
        if name == "clk" {
            decls.push("    input wire tick".to_string());
        } else {
            decls.push(format!("    {dir} wire {range}{name}"));
        }
        conns.push(format!(".{name}({name})"));
    }
    Ok(format!(
        "// Simulation only: {top} clocked once per flip of tick.\n\
         module {top}_tick (\n{}\n);\n\
         \x20   reg tick_d = 1'b0;\n\
         \x20   wire clk = tick ^ tick_d;\n\
         \x20   always @(posedge clk) tick_d <= tick;\n\
         \x20   {top} router ({});\n\
         endmodule\n",
        decls.join(",\n"),
        conns.join(", ")
    ))
}

/// The C++ shim for the router `top` with P ports and V VCs: a C interface
/// creating N models wired by a link table, reading the outputs of a range
/// of routers, and evaluating one cycle of a range of routers from the
/// local inputs and the outputs sampled before the cycle (each model has
/// its own context, so ranges may run on different threads). The model is
/// that of [`clock_wrapper`]: one `eval` per cycle.
pub fn shim(top: &str, ports: usize, has_node: bool) -> String {
    let mut set = String::new();
    let mut get = String::new();
    for p in 0..ports {
        let src = if p == 0 {
            "        { const uint64_t dd = ind[i]; const uint32_t ff = inf[i]; const uint32_t cc = inc[i];\n"
                .to_string()
        } else {
            format!(
                "        {{ const int32_t k = n->feed[i * P + {p}]; const int32_t s = n->link[i * P + {p}]; \
                 const uint64_t dd = k < 0 ? 0 : od[k]; const uint32_t ff = k < 0 ? 0 : of[k]; \
                 const uint32_t cc = s < 0 ? 0 : oc[s];\n"
            )
        };
        set.push_str(&src);
        let _ = writeln!(
            set,
            "          r->p{p}_in_data = dd; r->p{p}_in_valid = ff & 1; r->p{p}_in_head = (ff >> 1) & 1; \
             r->p{p}_in_tail = (ff >> 2) & 1; r->p{p}_in_vc = ff >> 3; r->p{p}_out_credit = cc; }}"
        );
        let _ = writeln!(
            get,
            "        d[i * P + {p}] = r->p{p}_out_data; f[i * P + {p}] = r->p{p}_out_valid | \
             (r->p{p}_out_head << 1) | (r->p{p}_out_tail << 2) | (uint32_t(r->p{p}_out_vc) << 3); \
             c[i * P + {p}] = r->p{p}_in_credit;"
        );
    }
    let node = if has_node {
        "        n->r[i]->node_id = node_id[i];\n"
    } else {
        ""
    };
    format!(
        r#"// C interface to N Verilated routers {top} wired by a link table.
#include <cstdint>
#include <vector>
#include "V{top}_tick.h"
#include "verilated.h"

static const int P = {ports};

struct Net {{
    std::vector<VerilatedContext *> ctx;
    std::vector<V{top}_tick *> r;
    std::vector<int32_t> link;
    std::vector<int32_t> feed;
}};

extern "C" {{
// nodes routers; link[i * P + p] = m * P + q, the port that port p sends
// into (its credits come back from there), or -1; feed[i * P + p], the
// port that sends into port p (the same unless the rings run one way).
void *rg_new(int nodes, const int32_t *link, const int32_t *feed, const uint64_t *node_id) {{
    Net *n = new Net;
    n->link.assign(link, link + nodes * P);
    n->feed.assign(feed, feed + nodes * P);
    for (int i = 0; i < nodes; i++) {{
        n->ctx.push_back(new VerilatedContext);
        n->r.push_back(new V{top}_tick{{n->ctx[i]}});
{node}        n->r[i]->tick = 0;
        n->r[i]->rst = 0;
        n->r[i]->eval();
    }}
    (void)node_id;
    return n;
}}

void rg_free(void *p) {{
    Net *n = static_cast<Net *>(p);
    for (size_t i = 0; i < n->r.size(); i++) {{
        n->r[i]->final();
        delete n->r[i];
        delete n->ctx[i];
    }}
    delete n;
}}

// The outputs of routers lo..hi: data, flags (valid | head << 1 | tail << 2
// | vc << 3), credits, at index node * P + port.
void rg_outputs(void *p, int lo, int hi, uint64_t *d, uint32_t *f, uint32_t *c) {{
    Net *n = static_cast<Net *>(p);
    for (int i = lo; i < hi; i++) {{
        V{top}_tick *r = n->r[i];
{get}    }}
}}

// One cycle of routers lo..hi: inputs (local ports from ind, inf, inc at
// index node; links from od, of, oc, the outputs sampled by rg_outputs
// before the cycle), then the rising edge: one flip of tick.
void rg_eval(void *p, int lo, int hi, int rst, const uint64_t *ind, const uint32_t *inf,
             const uint32_t *inc, const uint64_t *od, const uint32_t *of, const uint32_t *oc) {{
    Net *n = static_cast<Net *>(p);
    for (int i = lo; i < hi; i++) {{
        V{top}_tick *r = n->r[i];
        r->rst = rst;
{set}        r->tick ^= 1;
        r->eval();
    }}
}}
}}
"#
    )
}

/// Verilator's options for the simulation build (part of the cache key).
const VERILATOR_ARGS: &[&str] = &["-Wno-fatal", "-Wno-lint", "-Wno-style", "-Wno-UNOPTFLAT"];

/// The C++ optimization of the shared object (part of the cache key): a
/// network runs for many cycles, so the compile time is well spent.
const CXX_OPT: &str = "-O2";

/// Verilator configuration for the simulation build (the router's Verilog
/// is compiled unchanged). rust-hdl writes each block as one always block,
/// so a flow-control unit computes `out_valid` (from its count alone) in
/// the block that reads `out_ready`, which the switch allocator derives
/// from `out_valid`: a loop at block granularity only (UNOPTFLAT), which
/// Verilator iterates to convergence on every evaluation. Isolating the
/// assignments to `out_valid` into their own block removes the loop
/// (measured: about 30% fewer seconds per cycle on the 8x8 mesh).
const VERILATOR_CONFIG: &str = "`verilator_config\n\
isolate_assignments -module \"*flow_control_unit*\" -var \"out_valid\"\n";

/// Compiles the network (or finds it in the cache) and returns the shared
/// object's path.
pub fn build(spec: &RouterSpec, table: &CompiledTable) -> Result<PathBuf> {
    let top = spec.name();
    let top_verilog = top_verilog_of(spec, table)?;
    let verilog = format!(
        "{}\n{}\n{}",
        clock_wrapper(&top, &top_verilog)?,
        top_verilog,
        core_verilog_of(spec, table.clone())?
    );
    let cpp = shim(
        &top,
        spec.physical_ports() as usize,
        node_id_bits_of(table).is_some(),
    );
    // Found first: a missing Verilator is a tool error that says how to
    // install it, and another release writes other C++ from the same
    // sources.
    let inst = crate::flows::verilator::installation()?;
    let mut h = std::collections::hash_map::DefaultHasher::new();
    verilog.hash(&mut h);
    cpp.hash(&mut h);
    VERILATOR_ARGS.hash(&mut h);
    CXX_OPT.hash(&mut h);
    VERILATOR_CONFIG.hash(&mut h);
    (&inst.exe, &inst.version).hash(&mut h);
    let key = format!("{}-{:016x}", spec.name(), h.finish());
    let keep = [("router.v", verilog.as_str())];
    super::dynlib::cached(
        &key,
        "libsimnet.so",
        &keep,
        "the Verilator network",
        |dir| {
            let write = |name: &str, text: &str| {
                std::fs::write(dir.join(name), text).map_err(|e| e.to_string())
            };
            write("router.v", &verilog)?;
            write("shim.cpp", &cpp)?;
            write("sim.vlt", VERILATOR_CONFIG)?;
            crate::flows::verilator::build_model(
                dir,
                &format!("{top}_tick"),
                VERILATOR_ARGS,
                &["sim.vlt", "router.v"],
                &["shim.cpp"],
                CXX_OPT,
                (crate::flows::verilator::Output::Shared, "libsimnet.so"),
            )
            .map_err(|e| e.to_string())
        },
    )
}

type NewFn = unsafe extern "C" fn(c_int, *const i32, *const i32, *const u64) -> *mut c_void;
type FreeFn = unsafe extern "C" fn(*mut c_void);
type OutFn = unsafe extern "C" fn(*mut c_void, c_int, c_int, *mut u64, *mut u32, *mut u32);
type EvalFn = unsafe extern "C" fn(
    *mut c_void,
    c_int,
    c_int,
    c_int,
    *const u64,
    *const u32,
    *const u32,
    *const u64,
    *const u32,
    *const u32,
);

/// The network handle, sent to the worker thread of a cycle.
#[derive(Clone, Copy)]
struct Net(*mut c_void);
// SAFETY: the shim's models are independent objects with a context each;
// a cycle hands disjoint ranges of them to different threads and joins
// them before anything else touches the network.
unsafe impl Send for Net {}
unsafe impl Sync for Net {}

impl Net {
    /// The handle (a method, so that closures capture the whole `Net`).
    fn ptr(self) -> *mut c_void {
        self.0
    }
}

/// A loaded, running Verilated network.
pub struct VerilatorEngine {
    net: Net,
    nodes: usize,
    threads: usize,
    workers: Workers,
    free: FreeFn,
    outputs: OutFn,
    eval: EvalFn,
    data: Vec<u64>,
    flags: Vec<u32>,
    credits: Vec<u32>,
    in_data: Vec<u64>,
    in_flags: Vec<u32>,
    out: Outputs,
}

impl VerilatorEngine {
    /// Builds (or finds) and loads the network of `spec`, evaluated on
    /// `threads_asked` threads.
    pub fn new(spec: &RouterSpec, table: &CompiledTable, threads_asked: usize) -> Result<Self> {
        let lib = build(spec, table)?;
        let w = Wiring::new(spec)?;
        let lib = super::dynlib::Library::open(&lib)?;
        // SAFETY: the shim defines these with exactly these C signatures.
        let (new, free, outputs, eval) = unsafe {
            (
                lib.function::<NewFn>("rg_new")?,
                lib.function::<FreeFn>("rg_free")?,
                lib.function::<OutFn>("rg_outputs")?,
                lib.function::<EvalFn>("rg_eval")?,
            )
        };
        let table = |t: &[Option<(u32, usize)>]| -> Vec<i32> {
            t.iter()
                .map(|l| l.map_or(-1, |(m, q)| (m as usize * w.ports + q) as i32))
                .collect()
        };
        let (link, feed) = (table(&w.link), table(&w.feed));
        let ids: Vec<u64> = (0..w.nodes())
            .map(|n| node_id(spec, &w.net, n as u32))
            .collect();
        // SAFETY: rg_new copies the N P entries of both link tables and reads N node ids;
        // the models it allocates are freed once, in Drop.
        let net = unsafe {
            new(
                w.nodes() as c_int,
                link.as_ptr(),
                feed.as_ptr(),
                ids.as_ptr(),
            )
        };
        let k = w.nodes() * w.ports;
        let threads = threads(threads_asked, w.nodes());
        let mut e = VerilatorEngine {
            net: Net(net),
            nodes: w.nodes(),
            threads,
            workers: Workers::new(threads)?,
            free,
            outputs,
            eval,
            data: vec![0; k],
            flags: vec![0; k],
            credits: vec![0; k],
            in_data: vec![0; w.nodes()],
            in_flags: vec![0; w.nodes()],
            out: Outputs::new(w.nodes(), w.ports),
        };
        e.sample();
        Ok(e)
    }

    fn sample(&mut self) {
        // SAFETY: the buffers hold N P entries, as the shim writes.
        unsafe {
            (self.outputs)(
                self.net.0,
                0,
                self.nodes as c_int,
                self.data.as_mut_ptr(),
                self.flags.as_mut_ptr(),
                self.credits.as_mut_ptr(),
            )
        };
        for (k, f) in self.out.flits.iter_mut().enumerate() {
            let x = self.flags[k];
            *f = Flit {
                valid: x & 1 == 1,
                head: x >> 1 & 1 == 1,
                tail: x >> 2 & 1 == 1,
                vc: (x >> 3) as u8,
                data: self.data[k],
            };
        }
        self.out.credits.copy_from_slice(&self.credits);
        self.out.index_valid();
    }
}

impl Engine for VerilatorEngine {
    fn outputs(&self) -> &Outputs {
        &self.out
    }

    fn step(&mut self, rst: bool, inject: &[Flit], eject_credit: &[u32]) {
        for (n, f) in inject.iter().enumerate() {
            self.in_data[n] = f.data;
            self.in_flags[n] = u32::from(f.valid)
                | u32::from(f.head) << 1
                | u32::from(f.tail) << 2
                | u32::from(f.vc) << 3;
        }
        let (eval, net, rst) = (self.eval, self.net, c_int::from(rst));
        let (ind, inf, inc) = (&self.in_data, &self.in_flags, eject_credit);
        let (od, of, oc) = (&self.data, &self.flags, &self.credits);
        let range = |(lo, hi): (usize, usize)| {
            // SAFETY: the local buffers hold N entries and the sampled
            // outputs N P, as the shim reads; the range is the caller's
            // alone for this cycle.
            unsafe {
                eval(
                    net.ptr(),
                    lo as c_int,
                    hi as c_int,
                    rst,
                    ind.as_ptr(),
                    inf.as_ptr(),
                    inc.as_ptr(),
                    od.as_ptr(),
                    of.as_ptr(),
                    oc.as_ptr(),
                )
            }
        };
        self.workers.run(split(self.nodes, self.threads), range);
        self.sample();
    }
}

impl Drop for VerilatorEngine {
    fn drop(&mut self) {
        // SAFETY: `net` came from rg_new and is freed once.
        unsafe { (self.free)(self.net.0) };
    }
}

#[cfg(test)]
mod tests {
    use super::clock_wrapper;
    use crate::flows::{require_tool, run, TempDir};

    /// A counter on `clk`, in the port-per-line form of the router's top.
    const COUNTER: &str = "module cnt (\n    input wire clk,\n    input wire rst,\n    \
        output wire [7:0] n\n);\n    reg [7:0] c = 8'd0;\n    assign n = c;\n    \
        always @(posedge clk) c <= rst ? 8'd0 : c + 8'd1;\nendmodule\n";

    /// Icarus, not the engine, counts the edges: every flip of `tick` is
    /// one rising edge of the wrapped module's clock, none in between.
    #[test]
    fn each_flip_of_tick_is_one_clock_edge() {
        if !require_tool("iverilog") || !require_tool("vvp") {
            return;
        }
        let wrap = clock_wrapper("cnt", COUNTER).unwrap();
        let tb = "module tb;\n  reg tick = 0, rst = 1;\n  wire [7:0] n;\n  \
            cnt_tick u(.tick(tick), .rst(rst), .n(n));\n  integer i;\n  initial begin\n    \
            #1 tick = ~tick; #1 rst = 0;\n    for (i = 0; i < 5; i = i + 1) begin #1 tick = ~tick; end\n    \
            #1 $display(\"n=%0d\", n); $finish;\n  end\nendmodule\n";
        let dir = TempDir::new("tick").unwrap();
        dir.write("t.v", &format!("{COUNTER}{wrap}{tb}")).unwrap();
        let c = run("iverilog", &["-Wall", "-o", "t.vvp", "t.v"], dir.path()).unwrap();
        assert!(c.success, "{}{}", c.stdout, c.stderr);
        let out = run("vvp", &["t.vvp"], dir.path()).unwrap();
        assert!(out.stdout.contains("n=5"), "{}", out.stdout);
    }

    #[test]
    fn a_module_without_its_port_list_or_clock_is_refused() {
        assert!(clock_wrapper("other", COUNTER).is_err());
        let no_clk = COUNTER.replace("input wire clk", "input wire clock");
        let e = clock_wrapper("cnt", &no_clk).unwrap_err().to_string();
        assert!(e.contains("no clk input"), "{e}");
    }
}
