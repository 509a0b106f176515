//! A cycle of the netlist as generated straight-line C: one statement per
//! gate over 64-bit words (64 routers each), or over vectors of `group`
//! such words (GCC's vector extension: 128 or 256 routers a statement,
//! one SIMD operation where the processor has AVX2), the flip-flops
//! updated after the logic that feeds them, then the logic that drives
//! the outputs.
//! Compiled once by the C compiler into a shared object, cached by a hash
//! of the source, the flags and the compiler ([`super::super::dynlib`]),
//! and loaded into this process. The interpreted [`super::Program`] does
//! the same work without a compiler.

use std::fmt::Write as _;
use std::hash::{Hash, Hasher};

use super::{Gate, Netlist};
use crate::error::Result;
use crate::sim::dynlib::{cached, Library};

/// The compiler's flags (part of the cache key). `-O1`: the 8x8 router
/// with two VCs compiles in about 12 s of CPU against 20 s at `-O2`, and
/// runs as fast (docs/sim.md, the netlist engine).
const CFLAGS: &[&str] = &["-O1", "-std=c99", "-w"];

/// Files the gate functions are spread over, compiled in parallel (as many
/// at once as there are processors) and linked. Fixed, so that the source
/// and its cache key do not depend on the machine.
const FILES: usize = 4;

/// Statements per generated function: the compiler's time grows faster
/// than the size of a function, so a long run of gates is cut into
/// functions of this many statements. 500: the 8x8 router with two VCs
/// compiles in 10.8 s of CPU against 13.8 s with 2,000, and runs as fast
/// (docs/sim.md).
const CHUNK: usize = 500;

/// `f(words, groups, stride)`: groups of `stride` words, one after another.
type BlockFn = unsafe extern "C" fn(*mut u64, usize, usize);

/// Words a statement may work on at once: up to four (256 bits, an AVX2
/// register).
pub const MAX_GROUP: usize = 4;

/// The compiler's flags for `group` words a statement: with several, AVX2
/// where this processor has it (2.6 times the single word's speed per
/// block on the 8x8 router with two VCs, against 1.7 with SSE2's 128
/// bits; docs/sim.md). The flags are part of the cache key, so a build
/// for AVX2 is never loaded on a machine without it.
fn cflags(group: usize) -> Vec<&'static str> {
    let mut f = CFLAGS.to_vec();
    #[cfg(target_arch = "x86_64")]
    if group > 1 && std::arch::is_x86_feature_detected!("avx2") {
        f.push("-mavx2");
    }
    let _ = group;
    f
}

/// The C type of `group` words: a GCC vector (at the alignment of one
/// word, so a group may start at any word).
fn word_type(group: usize) -> String {
    if group == 1 {
        "typedef uint64_t word;\n".into()
    } else {
        format!(
            "typedef uint64_t word __attribute__((vector_size({}), aligned(8)));\n",
            8 * group
        )
    }
}

/// A netlist's cycle, compiled and loaded.
pub struct Compiled {
    cycle: BlockFn,
    post: BlockFn,
    /// One past the highest net any statement touches.
    end: usize,
    /// Words a statement works on.
    group: usize,
}

/// The C expression of `kind` on operands `a`, `b`, `s`.
fn expr(kind: Gate, [a, b, s]: [&str; 3]) -> String {
    match kind {
        Gate::Buf => a.to_string(),
        Gate::Not => format!("~{a}"),
        Gate::And => format!("{a} & {b}"),
        Gate::Nand => format!("~({a} & {b})"),
        Gate::Or => format!("{a} | {b}"),
        Gate::Nor => format!("~({a} | {b})"),
        Gate::Xor => format!("{a} ^ {b}"),
        Gate::Xnor => format!("~({a} ^ {b})"),
        Gate::AndNot => format!("{a} & ~{b}"),
        Gate::OrNot => format!("{a} | ~{b}"),
        Gate::Mux => format!("({a} & ~{s}) | ({b} & {s})"),
    }
}

/// `cells` in an order where each follows the cells of `cells` that drive
/// its inputs and comes as soon after them as it can (depth first): a
/// value is used soon after it is made, so most stay in registers.
pub fn depth_first(n: &Netlist, cells: &[usize]) -> Vec<usize> {
    let mut driver = vec![usize::MAX; n.nets];
    for &k in cells {
        driver[n.cells[k].out as usize] = k;
    }
    let mut done = vec![false; n.cells.len()];
    let mut order = Vec::with_capacity(cells.len());
    let mut stack: Vec<(usize, usize)> = Vec::new();
    for &root in cells {
        if done[root] {
            continue;
        }
        stack.push((root, 0));
        while let Some((k, i)) = stack.pop() {
            let c = &n.cells[k];
            if i < c.kind.arity() {
                stack.push((k, i + 1));
                let d = driver[c.inputs[i] as usize];
                if d != usize::MAX && !done[d] {
                    stack.push((d, 0));
                }
            } else if !done[k] {
                done[k] = true;
                order.push(k);
            }
        }
    }
    order
}

/// Functions `{name}_0 ...` evaluating `cells` of `n` (in evaluation
/// order), each its own text in `bodies`, and `{name}` calling them in
/// turn into `c`, on one block of words `v`.
/// A net made and used inside one function only (`local[net]` names that
/// function's number, counted across calls by `next`) is a local
/// variable; the others live in `v`.
fn functions(
    c: &mut String,
    bodies: &mut Vec<String>,
    n: &Netlist,
    name: &str,
    cells: &[Vec<usize>],
    local: &[usize],
    first: usize,
) {
    let operand = |net: u32, f: usize| {
        if local[net as usize] == f {
            format!("n{net}")
        } else {
            format!("v[{net}]")
        }
    };
    for (i, chunk) in cells.iter().enumerate() {
        let f = first + i;
        let mut c = String::new();
        let _ = writeln!(c, "{PROTO} {name}_{i}(word *restrict v) {{");
        for &k in chunk {
            let cell = &n.cells[k];
            let ins = cell.inputs.map(|x| operand(x, f));
            let e = expr(cell.kind, [&ins[0], &ins[1], &ins[2]]);
            if local[cell.out as usize] == f {
                let _ = writeln!(c, "  const word n{} = {e};", cell.out);
            } else {
                let _ = writeln!(c, "  v[{}] = {e};", cell.out);
            }
        }
        c.push_str("}\n");
        bodies.push(c);
    }
    for i in 0..cells.len() {
        let _ = writeln!(c, "{PROTO} {name}_{i}(word *restrict v);");
    }
    let _ = writeln!(c, "static void {name}(word *restrict v) {{");
    for i in 0..cells.len() {
        let _ = writeln!(c, "  {name}_{i}(v);");
    }
    c.push_str("}\n");
}

/// A gate function's declaration: called from another file, exported from
/// none.
const PROTO: &str = "__attribute__((noinline, visibility(\"hidden\"))) void";

/// The C source of a cycle, as files: the first holds `rg_cycle` (the cells `pre`, then every
/// flip-flop (d, q) of `ffs` at once, then the cells `post`) and
/// `rg_post` (`post` alone), each over `groups` groups of `stride` 64-bit
/// words in which words `net group` to `net group + group - 1` are that
/// net's 64 `group` lanes; the others the gate functions, [`FILES`] of them.
pub fn source(
    n: &Netlist,
    pre: &[usize],
    ffs: &[(u32, u32)],
    post: &[usize],
    group: usize,
) -> Vec<String> {
    let header = format!(
        "/* A router netlist's cycle over {group} 64-bit words at once, 64 routers a word. */\n\
         #include <stdint.h>\n#include <stddef.h>\n{}",
        word_type(group)
    );
    let mut c = header.clone();
    let mut bodies = Vec::new();
    // Depth-first order, cut into functions; the nets each function
    // alone makes and reads are its locals.
    let chunks = |cells: &[usize]| -> Vec<Vec<usize>> {
        depth_first(n, cells)
            .chunks(CHUNK)
            .map(|c| c.to_vec())
            .collect()
    };
    let (pre, post) = (chunks(pre), chunks(post));
    const NONE: usize = usize::MAX;
    const SHARED: usize = usize::MAX - 1;
    let mut local = vec![NONE; n.nets];
    for (f, chunk) in pre.iter().chain(&post).enumerate() {
        for &k in chunk {
            local[n.cells[k].out as usize] = f;
        }
    }
    for (f, chunk) in pre.iter().chain(&post).enumerate() {
        for &k in chunk {
            let cell = &n.cells[k];
            for &x in &cell.inputs[..cell.kind.arity()] {
                if local[x as usize] != f {
                    local[x as usize] = SHARED;
                }
            }
        }
    }
    // Read from outside the functions: the outputs and the flip-flops' inputs.
    for x in n
        .ports
        .values()
        .filter(|p| !p.input)
        .flat_map(|p| p.bits.iter())
        .chain(ffs.iter().map(|f| &f.0))
    {
        local[*x as usize] = SHARED;
    }
    functions(&mut c, &mut bodies, n, "pre", &pre, &local, 0);
    functions(&mut c, &mut bodies, n, "post", &post, &local, pre.len());
    // The edge: flip-flops whose input is another's output are read
    // before any output changes.
    let qs: std::collections::HashSet<u32> = ffs.iter().map(|f| f.1).collect();
    c.push_str("static __attribute__((noinline)) void edge(word *restrict v) {\n");
    let chained: Vec<&(u32, u32)> = ffs.iter().filter(|f| qs.contains(&f.0)).collect();
    for (i, (d, _)) in chained.iter().enumerate() {
        let _ = writeln!(c, "  const word t{i} = v[{d}];");
    }
    for (d, q) in ffs.iter().filter(|f| !qs.contains(&f.0)) {
        let _ = writeln!(c, "  v[{q}] = v[{d}];");
    }
    for (i, (_, q)) in chained.iter().enumerate() {
        let _ = writeln!(c, "  v[{q}] = t{i};");
    }
    c.push_str("}\n");
    for (name, body) in [
        ("rg_cycle", "pre(v); edge(v); post(v);"),
        ("rg_post", "post(v);"),
    ] {
        let _ = writeln!(
            c,
            "void {name}(uint64_t *base, size_t groups, size_t stride) {{\n  \
             for (size_t k = 0; k < groups; k++) {{\n    word *v = (word *)(base + k * stride);\n    \
             {body}\n  }}\n}}"
        );
    }
    // Each function, longest first, to the shortest file so far: the
    // files about the same size, compiled in about the same time.
    let mut files = vec![header; FILES.min(bodies.len())];
    bodies.sort_by_key(|b| std::cmp::Reverse(b.len()));
    for body in bodies {
        if let Some(f) = files.iter_mut().min_by_key(|f| f.len()) {
            f.push_str(&body);
        }
    }
    files.insert(0, c);
    files
}

impl Compiled {
    /// Compiles (or finds in the cache) the cycle of [`source`] for the
    /// router `name`, `group` words a statement, and loads it.
    pub fn new(
        n: &Netlist,
        name: &str,
        pre: &[usize],
        ffs: &[(u32, u32)],
        post: &[usize],
        group: usize,
    ) -> Result<Compiled> {
        let files = source(n, pre, ffs, post, group);
        let flags = cflags(group);
        let names: Vec<String> = (0..files.len()).map(|i| format!("gates{i}.c")).collect();
        let mut h = std::collections::hash_map::DefaultHasher::new();
        files.hash(&mut h);
        flags.hash(&mut h);
        crate::flows::cc::version().hash(&mut h);
        let key = format!("gates-{name}-{:016x}", h.finish());
        // The source is kept beside the shared object, to read or time by hand.
        let keep: Vec<(&str, &str)> = names
            .iter()
            .map(String::as_str)
            .zip(files.iter().map(String::as_str))
            .collect();
        let lib = cached(&key, "libgates.so", &keep, "the netlist's C", |dir| {
            for (name, text) in &keep {
                std::fs::write(dir.join(name), text).map_err(|e| e.to_string())?;
            }
            let sources: Vec<&str> = names.iter().map(String::as_str).collect();
            crate::flows::cc::shared_object(dir, &sources, &flags, "libgates.so")
                .map_err(|e| e.to_string())
        })?;
        let lib = Library::open(&lib)?;
        // SAFETY: the source defines both with the signature of BlockFn.
        let (cycle, post_fn) = unsafe {
            (
                lib.function::<BlockFn>("rg_cycle")?,
                lib.function::<BlockFn>("rg_post")?,
            )
        };
        let end = pre
            .iter()
            .chain(post)
            .flat_map(|&k| {
                let c = &n.cells[k];
                c.inputs.into_iter().chain([c.out])
            })
            .chain(ffs.iter().flat_map(|&(d, q)| [d, q]))
            .max()
            .map_or(0, |m| m as usize + 1);
        Ok(Compiled {
            cycle,
            post: post_fn,
            end,
            group,
        })
    }

    fn call(&self, f: BlockFn, v: &mut [u64], groups: usize, stride: usize) {
        assert!(
            stride >= self.end * self.group && v.len() >= groups * stride,
            "{groups} groups of {stride} words for nets up to {}, {} words each",
            self.end,
            self.group
        );
        // SAFETY: every statement touches words below `end` times `group`
        // <= `stride` of a group, and the groups lie inside `v` (checked
        // above).
        unsafe { f(v.as_mut_ptr(), groups, stride) }
    }

    /// One cycle of every group of blocks (`stride` words each): the
    /// logic before the edge, the edge, the logic after it.
    pub fn cycle(&self, v: &mut [u64], groups: usize, stride: usize) {
        self.call(self.cycle, v, groups, stride)
    }

    /// The logic after the edge alone (the outputs of the initial state).
    pub fn post(&self, v: &mut [u64], groups: usize, stride: usize) {
        self.call(self.post, v, groups, stride)
    }
}
