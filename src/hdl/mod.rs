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
//! ([`code`], without rust-hdl's cost per indexed name), then respelled:
//! `make equiv` proves the result equivalent to `generate_verilog`'s
//! (docs/generate.md).

use std::collections::HashMap;

use rust_hdl::core::ast::{Verilog, VerilogLiteral};
use rust_hdl::core::atom::{is_atom_signed, Atom, AtomKind};
use rust_hdl::core::block::Block;
use rust_hdl::core::probe::Probe;
use rust_hdl::core::type_descriptor::{TypeDescriptor, TypeKind};

use crate::error::{Error, Result};

pub mod code;

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
    let mut tree = Tree::default();
    top.accept("top", &mut tree);
    let mut w = Writer {
        tree: &tree,
        top: name,
        titles,
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

/// The `$` of rust-hdl's names spelled `_`: the renaming [`write`] applies,
/// exposed so that rust-hdl's own Verilog can be spelled the same for the
/// equivalence check.
pub fn respell(verilog: &str) -> String {
    map_idents(verilog, |id| Some(id.replace('$', "_")))
}

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
            Verilog::Combinatorial(block) => code::combinatorial(block).map_err(|e| {
                Error::Internal(match e {
                    code::Unsupported::Link => format!(
                        "block `{}` links signals, which the Verilog writer does not support",
                        node.name
                    ),
                    code::Unsupported::Index(name) => format!(
                        "block `{}`: the Verilog writer cannot evaluate the index of `{name}`",
                        node.name
                    ),
                })
            })?,
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
        let clock_of: Vec<String> = stubs
            .into_iter()
            .map(|stub| copies.remove(&stub).unwrap_or(stub))
            .collect();
        let body = self.body(at, &regs, &clock_of, &kids, &code);
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

    /// The module's text in rust-hdl's names, its own name [`BODY_MARK`].
    fn body(
        &self,
        at: usize,
        regs: &[Register],
        clock_of: &[String],
        kids: &[(usize, String)],
        code: &str,
    ) -> String {
        let node = &self.tree.nodes[at];
        let mut s = String::new();
        let ports: Vec<&AtomInfo> = node
            .atoms
            .iter()
            .filter(|a| a.kind.is_parameter())
            .collect();
        s.push_str(&format!("module {BODY_MARK}"));
        if ports.is_empty() {
            s.push_str(";\n");
        } else {
            s.push_str(" (\n");
            for (i, a) in ports.iter().enumerate() {
                let dir = match a.kind {
                    AtomKind::InputParameter => "input wire",
                    AtomKind::OutputParameter => "output reg",
                    AtomKind::InOutParameter => "inout wire",
                    _ => "output wire",
                };
                let comma = if i + 1 < ports.len() { "," } else { "" };
                s.push_str(&format!(
                    "    {dir}{}{}{comma}\n",
                    range(a.width, a.signed),
                    a.name
                ));
            }
            s.push_str(");\n");
        }
        let of_kind =
            |k: AtomKind| -> Vec<&AtomInfo> { node.atoms.iter().filter(|a| a.kind == k).collect() };
        let consts = of_kind(AtomKind::Constant);
        if !consts.is_empty() {
            s.push('\n');
            for a in consts {
                let signed = if a.signed { " signed" } else { "" };
                s.push_str(&format!(
                    "    localparam{signed} {} = {};\n",
                    a.name, a.value
                ));
            }
        }
        if !node.enums.is_empty() {
            s.push('\n');
            for (label, value) in &node.enums {
                s.push_str(&format!("    localparam {label} = {value};\n"));
            }
        }
        let locals = of_kind(AtomKind::LocalSignal);
        if !locals.is_empty() {
            s.push('\n');
            for a in locals {
                s.push_str(&format!("    reg{}{};\n", range(a.width, a.signed), a.name));
            }
        }
        if !regs.is_empty() {
            s.push('\n');
            for (r, clock) in regs.iter().zip(clock_of) {
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
        // The signals between this module and its children.
        for (c, _) in kids {
            let child = &self.tree.nodes[*c];
            let mut any = false;
            for a in child.atoms.iter().filter(|a| a.kind.is_parameter()) {
                let stub = format!("{}${}", child.name, a.name);
                if !any {
                    s.push('\n');
                    any = true;
                }
                let kind = if a.kind == AtomKind::InputParameter {
                    "reg"
                } else {
                    "wire"
                };
                s.push_str(&format!("    {kind}{}{stub};\n", range(a.width, a.signed)));
            }
        }
        for (c, module) in kids {
            let child = &self.tree.nodes[*c];
            s.push_str(&format!("\n    {module} {} (\n", child.name));
            let ports: Vec<&AtomInfo> = child
                .atoms
                .iter()
                .filter(|a| a.kind.is_parameter())
                .collect();
            for (i, a) in ports.iter().enumerate() {
                let stub = format!("{}${}", child.name, a.name);
                let comma = if i + 1 < ports.len() { "," } else { "" };
                s.push_str(&format!("        .{}({stub}){comma}\n", a.name));
            }
            s.push_str("    );\n");
        }
        let code = tidy(code);
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
            for r in regs {
                s.push_str(&format!("        {}$q = {};\n", r.name, r.init));
            }
            s.push_str("    end\n");
        }
        let mut clocks: Vec<&String> = clock_of.iter().collect();
        clocks.sort();
        clocks.dedup();
        for clock in clocks {
            s.push_str(&format!("\n    always @(posedge {clock}) begin\n"));
            for (r, c) in regs.iter().zip(clock_of) {
                if c == clock {
                    s.push_str(&format!("        {}$q <= {}$d;\n", r.name, r.name));
                }
            }
            s.push_str("    end\n");
        }
        s.push_str("endmodule\n");
        s
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn respelling_leaves_system_names_and_literals() {
        assert_eq!(
            respell("a$b = $signed(c$0) + 32'h1f; d$q <= 4'b10$;"),
            "a_b = $signed(c_0) + 32'h1f; d_q <= 4'b10$;"
        );
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
