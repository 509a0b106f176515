//! A rust-hdl block tree written as Verilog a person can read: each
//! distinct module body once, flip-flops as registers inside the module
//! that owns them, and names without `$`.
//!
//! rust-hdl's own `generate_verilog` writes one module per instance (the
//! ten flow-control units of a router are ten modules, each flip-flop a
//! module of its own) and names a Vec element `din$k`. This writer walks the
//! same tree (rust-hdl's [`Probe`]) and:
//!
//! - writes a child that is a `DFF` as a register of its parent, updated in
//!   one `always @(posedge clock)` block, its initial value as declared;
//! - clocks a register by the parent's clock itself where the parent only
//!   copies the clock into it (`x$clock = clock;`);
//! - gives every module body one module, named after the field that holds it
//!   or the title the caller gives that field (`<top>_flow_control_unit` for
//!   the field `fcu`), instantiated where it is used;
//! - spells every `a$b$c` as `a_b_c` (an error where two names would meet).
//!
//! Each block's `#[hdl_gen]` code is written as rust-hdl writes it
//! ([`code`], without rust-hdl's cost per indexed name), then respelled.
//! The result was proved equivalent to `generate_verilog`'s on every
//! router of the matrix (docs/testing.md).

use std::collections::HashMap;

use rust_hdl::core::ast::{Verilog, VerilogLiteral};
use rust_hdl::core::atom::{is_atom_signed, Atom, AtomKind};
use rust_hdl::core::block::Block;
use rust_hdl::core::probe::Probe;
use rust_hdl::core::type_descriptor::{TypeDescriptor, TypeKind};

use crate::error::{Error, Result};

pub mod code;
mod vectors;

use vectors::Elem;

/// A block's Verilog as written by [`write`].
#[derive(Debug, Clone)]
pub struct Written {
    /// Every module, the top one first.
    pub text: String,
    /// Modules written.
    pub modules: usize,
}

/// Writes `top` (prepared: inputs claimed, connected) with the top module
/// named `name`. `titles` gives a module a name by the field holding it
/// (`("fcu", "flow_control_unit")`); other modules take the field's name.
pub fn write(top: &dyn Block, name: &str, titles: &[(&str, &str)]) -> Result<Written> {
    write_named(top, name, titles, &[])
}

/// How the instances of a Vec of sub-blocks are named: the generate loop
/// over the Vec's field `field` labelled `outer`, with an inner loop
/// `inner` of the given count where the elements are that many per outer
/// index (input VC i = q V + c: `in_p[q].vc[c]`), the instance in it
/// `instance`.
#[derive(Debug, Clone, Copy)]
pub struct InstanceLoops<'a> {
    /// The Vec's field (`fcu`).
    pub field: &'a str,
    /// The outer loop's label (`in_p`).
    pub outer: &'a str,
    /// The inner loop's label and count (`vc`, V), if any.
    pub inner: Option<(&'a str, usize)>,
    /// The instance's name in the loop (`buffer`).
    pub instance: &'a str,
}

/// The genvars of the loops over Vecs of sub-blocks: the outer one, and
/// the inner one of [`InstanceLoops::inner`].
pub const GENVARS: (&str, &str) = ("g", "gi");

/// [`write`], the Vecs of sub-blocks named in `loops` instantiated in
/// loops of their own labels.
pub fn write_named(
    top: &dyn Block,
    name: &str,
    titles: &[(&str, &str)],
    loops: &[InstanceLoops],
) -> Result<Written> {
    let mut tree = Tree::default();
    top.accept("top", &mut tree);
    let mut w = Writer {
        tree: &tree,
        top: name,
        titles,
        loops,
        bodies: HashMap::new(),
        taken: HashMap::new(),
        order: Vec::new(),
    };
    w.module(0)?;
    let mut text = String::new();
    // The top module first, then each module where it is first used.
    for (i, body) in w.order.iter().enumerate().rev() {
        if i + 1 != w.order.len() {
            text.push('\n');
        }
        text.push_str(body);
    }
    Ok(Written {
        text,
        modules: w.order.len(),
    })
}

/// The hierarchical name of element `k` of a Vec of sub-blocks `field`
/// (one module): the instance `unit` of the generate loop `field`, or as
/// `loops` names it.
pub fn instance_path(field: &str, k: usize, loops: &[InstanceLoops]) -> String {
    match loops.iter().find(|l| l.field == field) {
        Some(l) => match l.inner {
            Some((inner, n)) => format!("{}[{}].{inner}[{}].{}", l.outer, k / n, k % n, l.instance),
            None => format!("{}[{k}].{}", l.outer, l.instance),
        },
        None => format!("{field}[{k}].{INSTANCE}"),
    }
}

/// The instance name inside each generate loop over a Vec of sub-blocks.
const INSTANCE: &str = "unit";

#[derive(Debug, Clone)]
struct AtomInfo {
    name: String,
    kind: AtomKind,
    width: usize,
    value: VerilogLiteral,
    signed: bool,
}

struct Node {
    /// The instance name in its parent (`fcu$3`).
    name: String,
    atoms: Vec<AtomInfo>,
    children: Vec<usize>,
    code: Verilog,
    enums: Vec<(String, usize)>,
}

/// The block tree, as rust-hdl's probe walks it.
#[derive(Default)]
struct Tree {
    nodes: Vec<Node>,
    stack: Vec<usize>,
    namespace: Vec<String>,
}

impl Tree {
    fn add_enums(&mut self, at: usize, d: &TypeDescriptor) {
        match &d.kind {
            TypeKind::Enum(labels) => {
                for (value, label) in labels.iter().enumerate() {
                    let e = (label.replace("::", "$"), value);
                    if !self.nodes[at].enums.contains(&e) {
                        self.nodes[at].enums.push(e);
                    }
                }
            }
            TypeKind::Composite(items) => {
                for item in items {
                    self.add_enums(at, &item.kind);
                }
            }
            _ => {}
        }
    }
}

impl Probe for Tree {
    fn visit_start_scope(&mut self, name: &str, node: &dyn Block) {
        let id = self.nodes.len();
        self.nodes.push(Node {
            name: name.to_string(),
            atoms: Vec::new(),
            children: Vec::new(),
            code: node.hdl(),
            enums: Vec::new(),
        });
        if let Some(&parent) = self.stack.last() {
            self.nodes[parent].children.push(id);
        }
        self.stack.push(id);
        self.namespace.clear();
    }

    fn visit_start_namespace(&mut self, name: &str, _node: &dyn Block) {
        self.namespace.push(name.to_string());
    }

    fn visit_atom(&mut self, name: &str, signal: &dyn Atom) {
        let at = *self.stack.last().expect("atoms live in a scope");
        let mut full = self.namespace.join("$");
        if !full.is_empty() {
            full.push('$');
        }
        full.push_str(name);
        let d = signal.descriptor();
        self.add_enums(at, &d);
        if let Some(&parent) = self.stack.iter().rev().nth(1) {
            self.add_enums(parent, &d);
        }
        self.nodes[at].atoms.push(AtomInfo {
            name: full,
            kind: signal.kind(),
            width: signal.bits(),
            value: signal.verilog(),
            signed: is_atom_signed(signal),
        });
    }

    fn visit_end_namespace(&mut self, _name: &str, _node: &dyn Block) {
        self.namespace.pop();
    }

    fn visit_end_scope(&mut self, _name: &str, _node: &dyn Block) {
        self.stack.pop();
    }
}

struct Writer<'a> {
    tree: &'a Tree,
    top: &'a str,
    titles: &'a [(&'a str, &'a str)],
    loops: &'a [InstanceLoops<'a>],
    /// Module body (its name left out) -> module name.
    bodies: HashMap<String, String>,
    /// Module names in use, by the base they were made from.
    taken: HashMap<String, usize>,
    /// Each module's text in the order written (children first).
    order: Vec<String>,
}

/// A `DFF` child: its name, width, initial value and signedness.
struct Register {
    name: String,
    width: usize,
    init: String,
    signed: bool,
}

const BODY_MARK: &str = "\u{1}MODULE\u{1}";

impl Writer<'_> {
    /// Writes node `at` (and its children) and returns its module's name.
    fn module(&mut self, at: usize) -> Result<String> {
        let node = &self.tree.nodes[at];
        let mut regs = Vec::new();
        let mut kids = Vec::new();
        for &c in &node.children {
            match dff(&self.tree.nodes[c]) {
                Some(r) => regs.push(r),
                None => kids.push((c, self.module(c)?)),
            }
        }
        let mut code = match &node.code {
            Verilog::Combinatorial(block) => {
                code::combinatorial(block).map_err(|e| unsupported(&node.name, e))?
            }
            Verilog::Custom(text) => text.clone(),
            Verilog::Empty => String::new(),
            _ => {
                return Err(Error::Internal(format!(
                    "block `{}` is a wrapper or black box, which the Verilog writer does not \
                     support",
                    node.name
                )))
            }
        };
        // The registers' clocks, where the code only copies the clock into
        // them, are the clock itself (a copy's target is mentioned only
        // there). Child inputs stay signals of their own: connected straight
        // to the parent's signals, the plane slices' and VC-port routers'
        // testbenches never settled in Icarus.
        let mut mentions: HashMap<String, usize> = HashMap::new();
        map_idents(&code, |id| {
            *mentions.entry(id.to_string()).or_insert(0) += 1;
            None
        });
        let stubs: Vec<String> = regs.iter().map(|r| format!("{}$clock", r.name)).collect();
        let mut copies = take_copies(&mut code, |stub| {
            mentions.get(stub) == Some(&1) && stubs.iter().any(|s| s == stub)
        });
        let copied: std::collections::HashSet<String> = copies.keys().cloned().collect();
        let clock_of: Vec<String> = stubs
            .into_iter()
            .map(|stub| copies.remove(&stub).unwrap_or(stub))
            .collect();
        let body = self.body(at, &regs, &clock_of, &kids, &code, &copied)?;
        let respelled = respell_module(&body, &regs)?;
        if let Some(name) = self.bodies.get(&respelled) {
            return Ok(name.clone());
        }
        let name = if at == 0 {
            self.top.to_string()
        } else {
            self.fresh_name(&node.name)
        };
        self.bodies.insert(respelled.clone(), name.clone());
        self.order.push(respelled.replace(BODY_MARK, &name));
        Ok(name)
    }

    /// A module name for an instance named `inst` (`fcu$3`: `<top>_fcu`,
    /// or its title), numbered where that name holds another body.
    fn fresh_name(&mut self, inst: &str) -> String {
        let base: Vec<&str> = inst
            .split('$')
            .filter(|s| !s.chars().all(|c| c.is_ascii_digit()))
            .collect();
        let base = base.join("_");
        let title = self
            .titles
            .iter()
            .find(|(field, _)| *field == base)
            .map_or(base.as_str(), |(_, t)| t);
        let stem = format!("{}_{}", self.top, title);
        let n = self.taken.entry(stem.clone()).or_insert(0);
        *n += 1;
        if *n == 1 {
            stem
        } else {
            format!("{stem}_{n}")
        }
    }

    /// The module's text in rust-hdl's names, its own name [`BODY_MARK`];
    /// each Vec of signals, registers or sub-blocks one vector ([`vectors`])
    /// and each Vec of sub-blocks of one module a `generate` loop.
    fn body(
        &self,
        at: usize,
        regs: &[Register],
        clock_of: &[String],
        kids: &[(usize, String)],
        code: &str,
        copied: &std::collections::HashSet<String>,
    ) -> Result<String> {
        let node = &self.tree.nodes[at];
        let mut elems = Elements::default();
        let mut s = String::new();
        // The module's own signals: its ports (kept one name per element in
        // the top module, whose ports the caller names), constants, locals.
        let ports = signals(&node.atoms, |a| a.kind.is_parameter(), at != 0);
        s.push_str(&format!("module {BODY_MARK}"));
        if ports.is_empty() {
            s.push_str(";\n");
        } else {
            s.push_str(" (\n");
            for (i, p) in ports.iter().enumerate() {
                let dir = match p.kind {
                    AtomKind::InputParameter => "input wire",
                    AtomKind::OutputParameter => "output reg",
                    AtomKind::InOutParameter => "inout wire",
                    _ => "output wire",
                };
                let comma = if i + 1 < ports.len() { "," } else { "" };
                s.push_str(&format!(
                    "    {dir}{}{}{comma}\n",
                    range(p.bits(), p.signed),
                    p.declared()
                ));
                p.elements(&p.name, 0, &mut elems);
            }
            s.push_str(");\n");
        }
        let consts = signals(&node.atoms, |a| a.kind == AtomKind::Constant, true);
        if !consts.is_empty() {
            s.push('\n');
            for c in &consts {
                let signed = if c.signed { " signed" } else { "" };
                let value = match c.n {
                    None => c.values[0].to_string(),
                    Some(_) => concat(c.values.iter().map(|v| v.to_string())),
                };
                let range = if c.n.is_some() {
                    format!(" [{}:0]", c.bits() - 1)
                } else {
                    String::new()
                };
                s.push_str(&format!(
                    "    localparam{signed}{range} {} = {value};\n",
                    c.declared()
                ));
                c.elements(&c.name, 0, &mut elems);
            }
        }
        if !node.enums.is_empty() {
            s.push('\n');
            for (label, value) in &node.enums {
                s.push_str(&format!("    localparam {label} = {value};\n"));
            }
        }
        let locals = signals(&node.atoms, |a| a.kind == AtomKind::LocalSignal, true);
        if !locals.is_empty() {
            s.push('\n');
            for l in &locals {
                s.push_str(&format!(
                    "    reg{}{};\n",
                    range(l.bits(), l.signed),
                    l.declared()
                ));
                l.elements(&l.name, 0, &mut elems);
            }
        }
        // The registers, a Vec of them (one width and clock) as a vector.
        let reg_keys: Vec<(&str, (usize, &str))> = regs
            .iter()
            .zip(clock_of)
            .filter(|(r, _)| !r.signed)
            .map(|(r, c)| (r.name.as_str(), (r.width, c.as_str())))
            .collect();
        let reg_groups = vectors::groups(&reg_keys);
        let grouped = |name: &str| {
            vectors::split_index(name)
                .and_then(|(stem, _)| reg_groups.iter().find(|g| g.stem == stem))
        };
        if !regs.is_empty() {
            s.push('\n');
            for g in &reg_groups {
                let (w, _) = g.key;
                let r = range(g.n * w, false);
                let v = respelled(&g.stem);
                let bits = if w == 1 { "bit" } else { "bits" };
                s.push_str(&format!(
                    "    reg{r}{v};  // {} x {w} {bits}\n    reg{r}{v}_d;\n",
                    g.n
                ));
                for (field, vector) in [("q", v.clone()), ("d", format!("{v}_d"))] {
                    elems
                        .patterns
                        .insert(format!("{}$#${field}", g.stem), found(vector, w, 1));
                }
                for k in 0..g.n {
                    for (field, vector) in [("q", v.clone()), ("d", format!("{v}_d"))] {
                        elems.names.insert(
                            format!("{}${k}${field}", g.stem),
                            Elem {
                                vector,
                                index: k,
                                width: w,
                            },
                        );
                    }
                }
            }
            for (r, clock) in regs.iter().zip(clock_of) {
                if grouped(&r.name).is_some() {
                    continue;
                }
                s.push_str(&format!(
                    "    reg{}{}$q;\n    reg{}{}$d;\n",
                    range(r.width, r.signed),
                    r.name,
                    range(r.width, r.signed),
                    r.name
                ));
                if clock.ends_with("$clock") {
                    s.push_str(&format!("    reg {clock};\n"));
                }
            }
        }
        // The signals between this module and its children: a Vec of
        // children of one module shares a vector per port.
        // (A child with a signed port keeps signals of its own: an element
        // of a vector is unsigned.)
        let kid_keys: Vec<(&str, &str)> = kids
            .iter()
            .map(|(c, m)| (&self.tree.nodes[*c], m.as_str()))
            .filter(|(c, _)| !c.atoms.iter().any(|a| a.signed && a.kind.is_parameter()))
            .map(|(c, m)| (c.name.as_str(), m))
            .collect();
        let kid_groups = vectors::groups(&kid_keys);
        let kid_group = |name: &str| {
            vectors::split_index(name)
                .and_then(|(stem, k)| kid_groups.iter().find(|g| g.stem == stem).map(|g| (g, k)))
        };
        let mut stubs_declared = false;
        for (c, _) in kids {
            let child = &self.tree.nodes[*c];
            let child_ports = signals(&child.atoms, |a| a.kind.is_parameter(), true);
            let (stem, count, first, in_group) = match kid_group(&child.name) {
                Some((g, k)) => (g.stem.clone(), g.n, k == 0, true),
                None => (child.name.clone(), 1, true, false),
            };
            for p in &child_ports {
                let stub = format!("{stem}${}", p.name);
                match kid_group(&child.name) {
                    Some((_, k)) => p.elements_of_instance(&stub, &child.name, k, &mut elems),
                    None => p.elements(&stub, 0, &mut elems),
                }
                if !first {
                    continue;
                }
                if !stubs_declared {
                    s.push('\n');
                    stubs_declared = true;
                }
                let kind = if p.kind == AtomKind::InputParameter {
                    "reg"
                } else {
                    "wire"
                };
                let signed = p.signed && !in_group;
                let stub = if !in_group && p.n.is_none() {
                    stub
                } else {
                    respelled(&stub)
                };
                s.push_str(&format!(
                    "    {kind}{}{stub};\n",
                    range(count * p.bits(), signed)
                ));
            }
        }
        // Each group's loops: its own, where `loops` names it and its
        // elements divide evenly, else one loop labelled by the field.
        let loops_of = |g: &vectors::Group<&str>| {
            let named = self.loops.iter().find(|l| l.field == g.stem);
            match named {
                Some(l) if l.inner.map_or(true, |(_, n)| n > 0 && g.n % n == 0) => *l,
                _ => InstanceLoops {
                    field: "",
                    outer: "",
                    inner: None,
                    instance: INSTANCE,
                },
            }
        };
        if !kid_groups.is_empty() {
            let nested = kid_groups.iter().any(|g| loops_of(g).inner.is_some());
            if nested {
                s.push_str(&format!("\n    genvar {}, {};\n", GENVARS.0, GENVARS.1));
            } else {
                s.push_str(&format!("\n    genvar {};\n", GENVARS.0));
            }
        }
        for (c, module) in kids {
            let child = &self.tree.nodes[*c];
            let child_ports = signals(&child.atoms, |a| a.kind.is_parameter(), true);
            match kid_group(&child.name) {
                Some((g, 0)) => {
                    let l = loops_of(g);
                    let (go, gi) = GENVARS;
                    let outer = if l.outer.is_empty() {
                        respelled(&g.stem)
                    } else {
                        l.outer.to_string()
                    };
                    let (index, indent) = match l.inner {
                        Some((label, n)) => {
                            s.push_str(&format!(
                                "\n    generate\n        for ({go} = 0; {go} < {}; {go} = {go} + 1) \
                                 begin : {outer}\n            for ({gi} = 0; {gi} < {n}; {gi} = {gi} + 1) \
                                 begin : {label}\n",
                                g.n / n
                            ));
                            (format!("({go}*{n}+{gi})"), "                ")
                        }
                        None => {
                            s.push_str(&format!(
                                "\n    generate\n        for ({go} = 0; {go} < {}; {go} = {go} + 1) \
                                 begin : {outer}\n",
                                g.n
                            ));
                            (go.to_string(), "            ")
                        }
                    };
                    s.push_str(&format!("{indent}{module} {} (\n", l.instance));
                    for (i, p) in child_ports.iter().enumerate() {
                        let comma = if i + 1 < child_ports.len() { "," } else { "" };
                        let stub = respelled(&format!("{}${}", g.stem, p.name));
                        let bits = p.bits();
                        let part = if bits == 1 {
                            format!("{stub}[{index}]")
                        } else {
                            format!("{stub}[{index}*{bits} +: {bits}]")
                        };
                        s.push_str(&format!("{indent}    .{}({part}){comma}\n", p.declared()));
                    }
                    s.push_str(&format!("{indent});\n"));
                    if l.inner.is_some() {
                        s.push_str("            end\n");
                    }
                    s.push_str("        end\n    endgenerate\n");
                }
                Some(_) => {}
                None => {
                    s.push_str(&format!("\n    {module} {} (\n", child.name));
                    for (i, p) in child_ports.iter().enumerate() {
                        let comma = if i + 1 < child_ports.len() { "," } else { "" };
                        let stub = format!("{}${}", child.name, p.name);
                        let stub = match p.n {
                            Some(_) => respelled(&stub),
                            None => stub,
                        };
                        s.push_str(&format!("        .{}({stub}){comma}\n", p.declared()));
                    }
                    s.push_str("    );\n");
                }
            }
        }
        // The code again, its loops written as loops over the vectors where
        // they can be (the clock copies taken out as before).
        let looped;
        let code = match &node.code {
            Verilog::Combinatorial(block) => {
                let lookup = |p: &str| elems.patterns.get(p).cloned();
                let (mut text, vars) = code::combinatorial_looped(block, &lookup)
                    .map_err(|e| unsupported(&node.name, e))?;
                take_copies(&mut text, |stub| copied.contains(stub));
                if !vars.is_empty() {
                    s.push_str(&format!("\n    integer {};\n", vars.join(", ")));
                }
                looped = text;
                &looped
            }
            _ => code,
        };
        let code = vectors::map_elements(&tidy(code), &elems.names)?;
        if !code.trim().is_empty() {
            s.push('\n');
            for line in code.lines() {
                if line.trim().is_empty() {
                    s.push('\n');
                } else {
                    s.push_str("    ");
                    s.push_str(line.trim_end());
                    s.push('\n');
                }
            }
        }
        // The registers: their initial values (rust-hdl's flip-flops start
        // at zero, there is no reset unless the logic makes one), then one
        // always block per clock.
        if !regs.is_empty() {
            s.push_str("\n    initial begin\n");
            for g in &reg_groups {
                let inits = regs
                    .iter()
                    .filter(|r| grouped(&r.name).is_some_and(|h| h.stem == g.stem));
                let mut inits: Vec<(usize, &str)> = inits
                    .map(|r| {
                        (
                            vectors::split_index(&r.name).map_or(0, |x| x.1),
                            r.init.as_str(),
                        )
                    })
                    .collect();
                inits.sort();
                let value = if inits.iter().all(|(_, v)| *v == inits[0].1) {
                    format!("{{{}{{{}}}}}", g.n, inits[0].1)
                } else {
                    concat(inits.iter().map(|(_, v)| v.to_string()))
                };
                s.push_str(&format!("        {} = {value};\n", respelled(&g.stem)));
            }
            for r in regs.iter().filter(|r| grouped(&r.name).is_none()) {
                s.push_str(&format!("        {}$q = {};\n", r.name, r.init));
            }
            s.push_str("    end\n");
        }
        let mut clocks: Vec<&String> = clock_of.iter().collect();
        clocks.sort();
        clocks.dedup();
        for clock in clocks {
            s.push_str(&format!("\n    always @(posedge {clock}) begin\n"));
            for g in reg_groups.iter().filter(|g| g.key.1 == clock.as_str()) {
                let v = respelled(&g.stem);
                s.push_str(&format!("        {v} <= {v}_d;\n"));
            }
            for (r, c) in regs.iter().zip(clock_of) {
                if c == clock && grouped(&r.name).is_none() {
                    s.push_str(&format!("        {}$q <= {}$d;\n", r.name, r.name));
                }
            }
            s.push_str("    end\n");
        }
        s.push_str("endmodule\n");
        Ok(without_unused_localparams(&s))
    }
}

/// A module's text without the `localparam`s nothing in it reads (a
/// block's constants for a mode it is not built in), which Verilator
/// flags (UNUSEDPARAM).
fn without_unused_localparams(module: &str) -> String {
    let lines: Vec<&str> = module.lines().collect();
    let declared = |line: &str| -> Option<String> {
        let rest = line.trim_start().strip_prefix("localparam ")?;
        let name = rest.split('=').next()?.split_whitespace().last()?;
        Some(name.to_string())
    };
    let mut out = String::with_capacity(module.len());
    for (i, line) in lines.iter().enumerate() {
        let unused = declared(line).is_some_and(|name| {
            !lines
                .iter()
                .enumerate()
                .any(|(j, other)| j != i && has_word(other, &name))
        });
        if !unused {
            out.push_str(line);
            out.push('\n');
        }
    }
    out
}

/// Whether `word` stands in `line` as a whole identifier.
fn has_word(line: &str, word: &str) -> bool {
    let ident = |c: char| c.is_ascii_alphanumeric() || c == '_' || c == '$';
    line.match_indices(word).any(|(at, _)| {
        let before = line[..at].chars().next_back();
        let after = line[at + word.len()..].chars().next();
        !before.is_some_and(ident) && !after.is_some_and(ident)
    })
}

/// Where the elements of a module's Vecs live: by name (`x$3`), and by
/// pattern (`x$#`, for loops written as loops).
#[derive(Default)]
struct Elements {
    names: HashMap<String, Elem>,
    patterns: HashMap<String, code::Found>,
}

/// Why the code of block `name` cannot be written.
fn unsupported(name: &str, e: code::Unsupported) -> Error {
    Error::Internal(match e {
        code::Unsupported::Link => {
            format!("block `{name}` links signals, which the Verilog writer does not support")
        }
        code::Unsupported::Index(index) => {
            format!("block `{name}`: the Verilog writer cannot evaluate the index of `{index}`")
        }
        code::Unsupported::Symbolic => {
            format!("block `{name}`: the Verilog writer could neither loop nor unroll a loop")
        }
    })
}

/// A module's signal: one atom, or a Vec of them (`n` elements).
struct Sig {
    /// The atom's name, or the Vec's stem.
    name: String,
    kind: AtomKind,
    /// Bits of one element.
    width: usize,
    n: Option<usize>,
    signed: bool,
    /// Each element's value (constants).
    values: Vec<VerilogLiteral>,
}

impl Sig {
    fn bits(&self) -> usize {
        self.width * self.n.unwrap_or(1)
    }

    /// The name it is declared by: a Vec's already respelled (its
    /// elements are written as parts of that name).
    fn declared(&self) -> String {
        match self.n {
            Some(_) => respelled(&self.name),
            None => self.name.clone(),
        }
    }

    /// Records where each element `<as_>$k` of this Vec lives: element
    /// `first + k` of the vector `as_`.
    fn elements(&self, as_: &str, first: usize, elems: &mut Elements) {
        if let Some(n) = self.n {
            if first == 0 {
                elems
                    .patterns
                    .insert(format!("{as_}$#"), found(respelled(as_), self.width, 1));
            }
            for k in 0..n {
                elems.names.insert(
                    format!("{as_}${k}"),
                    Elem {
                        vector: respelled(as_),
                        index: first + k,
                        width: self.width,
                    },
                );
            }
        }
    }

    /// Records where instance `k` (`inst`) of a Vec of children finds
    /// this port in the parent's vector `stub`.
    fn elements_of_instance(&self, stub: &str, inst: &str, k: usize, elems: &mut Elements) {
        let own = format!("{inst}${}", self.name);
        match self.n {
            None => {
                if let Some((stem, _)) = vectors::split_index(inst) {
                    elems.patterns.insert(
                        format!("{stem}$#${}", self.name),
                        found(respelled(stub), self.width, 1),
                    );
                }
                elems.names.insert(
                    own,
                    Elem {
                        vector: respelled(stub),
                        index: k,
                        width: self.width,
                    },
                );
            }
            Some(n) => {
                if let Some((stem, _)) = vectors::split_index(inst) {
                    elems.patterns.insert(
                        format!("{stem}$#${}$#", self.name),
                        found(respelled(stub), self.width, n),
                    );
                }
                for j in 0..n {
                    elems.names.insert(
                        format!("{own}${j}"),
                        Elem {
                            vector: respelled(stub),
                            index: k * n + j,
                            width: self.width,
                        },
                    );
                }
            }
        }
    }
}

/// The atoms `pick` selects, in order, each Vec of unsigned atoms of one
/// kind and width as one [`Sig`] where `vecs`.
fn signals(atoms: &[AtomInfo], pick: impl Fn(&AtomInfo) -> bool, vecs: bool) -> Vec<Sig> {
    let picked: Vec<&AtomInfo> = atoms.iter().filter(|a| pick(a)).collect();
    let keys: Vec<(&str, (usize, usize))> = picked
        .iter()
        .filter(|a| vecs && !a.signed)
        .map(|a| (a.name.as_str(), (a.kind as usize, a.width)))
        .collect();
    let groups = vectors::groups(&keys);
    let mut out: Vec<Sig> = Vec::new();
    for a in picked {
        let group = vectors::split_index(&a.name)
            .and_then(|(stem, k)| groups.iter().find(|g| g.stem == stem).map(|g| (g, k)));
        match group {
            Some((g, 0)) => out.push(Sig {
                name: g.stem.clone(),
                kind: a.kind,
                width: a.width,
                n: Some(g.n),
                signed: false,
                values: vec![a.value.clone()],
            }),
            Some((g, _)) => {
                if let Some(sig) = out.iter_mut().find(|s| s.name == g.stem) {
                    sig.values.push(a.value.clone());
                }
            }
            None => out.push(Sig {
                name: a.name.clone(),
                kind: a.kind,
                width: a.width,
                n: None,
                signed: a.signed,
                values: vec![a.value.clone()],
            }),
        }
    }
    out
}

/// `{v_(n-1), ..., v_0}` of elements `v_0` first.
fn concat(values: impl DoubleEndedIterator<Item = String>) -> String {
    format!("{{{}}}", values.rev().collect::<Vec<_>>().join(", "))
}

/// A rust-hdl name as the writer spells it.
fn respelled(name: &str) -> String {
    name.replace('$', "_")
}

/// `code` without the always blocks the clock copies taken out emptied (and
/// the comment line above each), its lines' common indentation removed.
fn tidy(code: &str) -> String {
    let lines: Vec<&str> = code.trim_end().lines().collect();
    let mut keep = vec![true; lines.len()];
    for i in 0..lines.len() {
        let next = lines.get(i + 1).map(|l| l.trim());
        if lines[i].trim() == "always @(*) begin" && next == Some("end") {
            keep[i] = false;
            keep[i + 1] = false;
            if i > 0 && lines[i - 1].trim().starts_with("//") {
                keep[i - 1] = false;
            }
        }
    }
    let kept: Vec<&str> = lines
        .iter()
        .zip(&keep)
        .filter(|(_, k)| **k)
        .map(|(l, _)| *l)
        .collect();
    let indent = kept
        .iter()
        .filter(|l| !l.trim().is_empty())
        .map(|l| l.len() - l.trim_start().len())
        .min()
        .unwrap_or(0);
    kept.iter()
        .map(|l| {
            if l.trim().is_empty() {
                ""
            } else {
                &l[indent..]
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// ` [w-1:0] ` or ` ` for one bit.
fn range(width: usize, signed: bool) -> String {
    let signed = if signed { " signed" } else { "" };
    if width == 1 {
        format!("{signed} ")
    } else {
        format!("{signed} [{}:0] ", width - 1)
    }
}

/// `node` as a register, where it is rust-hdl's `DFF`: the ports `d`,
/// `clock` in and `q` out, and its code the `DFF`'s.
fn dff(node: &Node) -> Option<Register> {
    if !node.children.is_empty() || node.atoms.len() != 3 {
        return None;
    }
    let text = match &node.code {
        Verilog::Custom(t) => t,
        _ => return None,
    };
    let find = |n: &str| node.atoms.iter().find(|a| a.name == n);
    let (d, q, clock) = (find("d")?, find("q")?, find("clock")?);
    if d.kind != AtomKind::InputParameter
        || clock.kind != AtomKind::InputParameter
        || q.kind != AtomKind::OutputParameter
        || d.width != q.width
    {
        return None;
    }
    let t: Vec<&str> = text.split_whitespace().collect();
    let shape = [
        "initial",
        "begin",
        "q",
        "=",
        "",
        "end",
        "always",
        "@(posedge",
        "clock)",
        "begin",
        "q",
        "<=",
        "d;",
        "end",
    ];
    if t.len() != shape.len() || t.iter().zip(shape).any(|(a, b)| !b.is_empty() && *a != b) {
        return None;
    }
    let init = t[4].strip_suffix(';')?.to_string();
    Some(Register {
        name: node.name.clone(),
        width: q.width,
        init,
        signed: q.signed,
    })
}

/// Removes from `code` each statement `stub = src;` that stands alone (at
/// a line's start, or after `;` or `begin`), where `src` is a plain name
/// and `wanted(stub)`; returns each `stub`'s `src`. A line left empty goes.
fn take_copies(code: &mut String, wanted: impl Fn(&str) -> bool) -> HashMap<String, String> {
    let plain = |n: &str| {
        !n.is_empty()
            && n.chars().all(is_ident_char)
            && !n.starts_with(|c: char| c.is_ascii_digit())
    };
    let mut copies = HashMap::new();
    let mut kept = String::with_capacity(code.len());
    for line in code.split_inclusive('\n') {
        let mut out = String::new();
        let mut took = false;
        for stmt in line.split_inclusive(';') {
            let t = stmt.trim_start();
            let (begin, t) = match t.strip_prefix("begin ") {
                Some(rest) => (true, rest.trim_start()),
                None => (false, t),
            };
            let copy = t
                .strip_suffix(';')
                .and_then(|t| t.split_once(" = "))
                .filter(|(stub, src)| plain(stub) && plain(src.trim()) && wanted(stub));
            match copy {
                Some((stub, src)) => {
                    copies.insert(stub.to_string(), src.trim().to_string());
                    took = true;
                    if begin {
                        out.push_str(&stmt[..stmt.find("begin").map_or(0, |i| i + 5)]);
                    }
                }
                None => out.push_str(stmt),
            }
        }
        if !(took && out.trim().is_empty()) {
            kept.push_str(&out);
        }
    }
    *code = kept;
    copies
}

fn is_ident_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_' || c == '$'
}

/// `text` with every identifier `id` replaced by `f(id)` (where `Some`);
/// system names (`$signed`), numbers and based literals' digits are left.
fn map_idents(text: &str, mut f: impl FnMut(&str) -> Option<String>) -> String {
    let b = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < b.len() {
        let c = b[i] as char;
        let starts = c.is_ascii_alphabetic() || c == '_';
        if starts && (i == 0 || (!is_ident_char(b[i - 1] as char) && b[i - 1] != b'\'')) {
            let mut j = i;
            while j < b.len() && is_ident_char(b[j] as char) {
                j += 1;
            }
            let id = &text[i..j];
            match f(id) {
                Some(new) => out.push_str(&new),
                None => out.push_str(id),
            }
            i = j;
        } else if c == '$' || c.is_ascii_digit() || c == '\'' {
            // A system name, a number or a based literal: copied whole.
            let mut j = i + 1;
            while j < b.len() && (is_ident_char(b[j] as char) || b[j] == b'\'') {
                j += 1;
            }
            out.push_str(&text[i..j]);
            i = j;
        } else {
            let len = text[i..].chars().next().map_or(1, char::len_utf8);
            out.push_str(&text[i..i + len]);
            i += len;
        }
    }
    out
}

/// A module's text respelled: a register `x$q` is `x`, every other `$`
/// is `_`; an error where two names become one.
fn respell_module(text: &str, regs: &[Register]) -> Result<String> {
    let reg_q: HashMap<String, String> = regs
        .iter()
        .map(|r| (format!("{}$q", r.name), r.name.replace('$', "_")))
        .collect();
    let mut seen: HashMap<String, String> = HashMap::new();
    let mut clash = None;
    let out = map_idents(text, |id| {
        let new = reg_q
            .get(id)
            .cloned()
            .unwrap_or_else(|| id.replace('$', "_"));
        match seen.get(&new) {
            Some(old) if old != id => clash = Some((old.clone(), id.to_string(), new.clone())),
            Some(_) => {}
            None => {
                seen.insert(new.clone(), id.to_string());
            }
        }
        Some(new)
    });
    match clash {
        Some((a, b, n)) => Err(Error::Internal(format!(
            "the Verilog writer would spell both `{a}` and `{b}` as `{n}`"
        ))),
        None => Ok(out),
    }
}

/// A vector of `width`-bit elements, `stride` per first index.
fn found(vector: String, width: usize, stride: usize) -> code::Found {
    code::Found {
        vector,
        width,
        stride,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn respelling_leaves_system_names_and_literals() {
        assert_eq!(
            respell_module("a$b = $signed(c$0) + 32'h1f; d$q <= 4'b10$;", &[]).unwrap(),
            "a_b = $signed(c_0) + 32'h1f; d_q <= 4'b10$;"
        );
    }

    #[test]
    fn only_the_localparams_the_module_reads_stay() {
        let module = "module m (input wire [4:0] a, output reg b);\n\
                      \x20   localparam depth = 5'b11;\n\
                      \x20   localparam [9:0] full = {5'b10, 5'b11};\n\
                      \x20   localparam depth_1 = 5'b10;\n\
                      \x20   always @(*) b = a == full[4:0] | a == depth_1;\n\
                      endmodule\n";
        let kept = without_unused_localparams(module);
        assert!(!kept.contains("localparam depth ="), "{kept}");
        assert!(kept.contains("localparam [9:0] full"), "{kept}");
        assert!(kept.contains("localparam depth_1"), "{kept}");
        assert_eq!(kept.lines().count(), module.lines().count() - 1);
    }

    #[test]
    fn a_copy_into_a_child_is_taken_only_where_it_stands_alone() {
        let all = |_: &str| true;
        let mut code = "always @(*) begin\n    x$clock = clock;\n    y = 1;\nend\n".to_string();
        let copies = take_copies(&mut code, all);
        assert_eq!(copies.get("x$clock").map(String::as_str), Some("clock"));
        assert_eq!(code, "always @(*) begin\n    y = 1;\nend\n");
        let mut several = "    a = 1; x$clock = clock; y$clock = clk;\n".to_string();
        assert_eq!(take_copies(&mut several, all).len(), 2);
        assert_eq!(several, "    a = 1;\n");
        for kept in ["if (a) x$d = b;\n", "x$d = b & c;\n", "x$d == b;\n"] {
            let mut c = kept.to_string();
            assert!(take_copies(&mut c, all).is_empty(), "{kept}");
            assert_eq!(c, kept);
        }
        let mut unwanted = "x$d = b;\n".to_string();
        assert!(take_copies(&mut unwanted, |s| s != "x$d").is_empty());
    }

    #[test]
    fn two_names_that_would_meet_are_an_error() {
        assert!(respell_module("a$b a_b", &[]).is_err());
        assert!(respell_module("a$b c_d", &[]).is_ok());
    }
}
