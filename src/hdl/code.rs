//! The Verilog of a block's `#[hdl_gen]` code (rust-hdl's AST), written
//! the way rust-hdl's `verilog_combinatorial` writes it, byte for byte:
//! one `always @(*)` block, loops unrolled, a Vec element `x[i]` spelled
//! `x$3`.
//!
//! rust-hdl builds a regular expression and an expression evaluator for
//! every indexed name it writes, which made them most of the time of
//! generating a router; here an index is evaluated by [`eval`], a small
//! integer evaluator. The test `the_code_is_rust_hdls` holds the two equal.

use rust_hdl::core::ast::{
    VerilogBlock, VerilogBlockOrConditional, VerilogExpression, VerilogOp, VerilogOpUnary,
    VerilogStatement,
};

/// Why the code could not be written.
#[derive(Debug, PartialEq, Eq)]
pub enum Unsupported {
    /// A `link` statement (the writer keeps no links).
    Link,
    /// An index it cannot evaluate.
    Index(String),
    /// A loop that cannot be written as a loop (written unrolled).
    Symbolic,
}

/// `block` as `always @(*) begin ... end` (with [`verbatim`] text at its
/// top level: each run of statements between the texts an always block of
/// its own, each text as it is).
pub fn combinatorial(block: &VerilogBlock) -> Result<String, Unsupported> {
    let mut w = CodeWriter::default();
    w.top(block)?;
    Ok(w.text())
}

/// Marks a comment statement as Verilog text written as it is.
const VERBATIM: &str = "\u{1}VERBATIM\u{1}";

/// A statement of `text` written as it is, outside the always blocks:
/// the part of a module's code not (yet) described as `#[hdl_gen]` code,
/// such as declarations and hand-written logic.
pub fn verbatim(text: String) -> VerilogStatement {
    VerilogStatement::Comment(format!("{VERBATIM}{text}"))
}

/// The text of a [`verbatim`] statement.
fn verbatim_text(s: &VerilogStatement) -> Option<&str> {
    match s {
        VerilogStatement::Comment(c) => c.strip_prefix(VERBATIM),
        _ => None,
    }
}

/// `block` without its [`verbatim`] statements (the code rust-hdl would
/// write, for comparison with it).
#[cfg(test)]
fn without_verbatim(block: &VerilogBlock) -> VerilogBlock {
    block
        .iter()
        .filter(|s| verbatim_text(s).is_none())
        .cloned()
        .collect()
}

/// Where the element `stem$#rest` of a Vec (`#` its index) lives: the
/// vector and the element's width. For an element of a Vec field of an
/// element of a Vec of sub-blocks (`stem$#$port$#`, both indexed) also
/// the sub-blocks' count of that field, by which the first index strides.
pub type Vectors<'a> = &'a dyn Fn(&str) -> Option<Found>;

/// A vector [`Vectors`] finds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Found {
    /// The vector's name.
    pub vector: String,
    /// Bits per element.
    pub width: usize,
    /// Elements per first index (1 for a name indexed once).
    pub stride: usize,
}

/// [`combinatorial`] with each loop written as a Verilog `for` loop where
/// every name it indexes by its variable is an element of a vector
/// (`vectors`), unrolled elsewhere; and the loop variables it declares.
pub fn combinatorial_looped(
    block: &VerilogBlock,
    vectors: Vectors<'_>,
) -> Result<(String, Vec<String>), Unsupported> {
    let mut w = CodeWriter {
        vectors: Some(vectors),
        ..CodeWriter::default()
    };
    w.top(block)?;
    let used = w.used.iter().cloned().collect();
    Ok((w.text(), used))
}

impl CodeWriter<'_> {
    fn text(&self) -> String {
        let mut text = String::new();
        for (indent, line) in &self.lines {
            for _ in 0..*indent {
                text.push_str("    ");
            }
            text.push_str(line);
            text.push('\n');
        }
        text.push('\n');
        text
    }
}

#[derive(Default)]
struct CodeWriter<'a> {
    lines: Vec<(usize, String)>,
    indent: usize,
    /// The line being written.
    buffer: String,
    /// The loop variables in scope, outermost first, with their values.
    loops: Vec<(String, i64)>,
    /// The vectors, where loops are written as loops.
    vectors: Option<Vectors<'a>>,
    /// The loop variables of the loops being written as loops.
    symbolic: Vec<String>,
    /// Every loop variable written.
    used: std::collections::BTreeSet<String>,
    /// Inside an index or a select (where a loop variable may stand).
    in_index: usize,
}

/// A name as written: plain, or an element of a vector at an index that
/// is an expression of loop variables.
enum Named {
    Plain(String),
    Element {
        vector: String,
        index: String,
        width: usize,
    },
}

impl Named {
    /// Its bits from `lo` (an expression), `width` of them.
    fn part(&self, lo: &str, width: usize) -> String {
        match self {
            Named::Plain(n) => format!("{n}[({lo})+:({width})]"),
            Named::Element {
                vector,
                index,
                width: w,
            } => format!("{vector}[({index})*{w} + ({lo}) +: {width}]"),
        }
    }

    fn whole(&self) -> String {
        match self {
            Named::Plain(n) => n.clone(),
            Named::Element {
                vector,
                index,
                width: 1,
            } => format!("{vector}[{index}]"),
            Named::Element {
                vector,
                index,
                width,
            } => format!("{vector}[({index})*{width} +: {width}]"),
        }
    }
}

impl<'a> CodeWriter<'a> {
    fn write(&mut self, s: &str) {
        self.buffer.push_str(s);
    }

    /// Ends the line being written (a line per `\n` in it; none if empty).
    fn writeln(&mut self, s: &str) {
        self.buffer.push_str(s);
        let line = std::mem::take(&mut self.buffer);
        self.add(&line);
    }

    fn add(&mut self, text: &str) {
        for piece in text.split_terminator('\n') {
            self.lines.push((self.indent, piece.to_string()));
        }
    }

    /// A module's code: one always block, or where it holds [`verbatim`]
    /// texts, an always block per run of statements between them.
    fn top(&mut self, b: &VerilogBlock) -> Result<(), Unsupported> {
        if !b.iter().any(|s| verbatim_text(s).is_some()) {
            self.write("always @(*) ");
            return self.block(b);
        }
        let mut run: VerilogBlock = Vec::new();
        for s in b {
            match verbatim_text(s) {
                Some(text) => {
                    self.always(&mut run)?;
                    // At the always blocks' indentation.
                    let indent = text
                        .lines()
                        .filter(|l| !l.trim().is_empty())
                        .map(|l| l.len() - l.trim_start().len())
                        .min()
                        .unwrap_or(0);
                    for piece in text.split_terminator('\n') {
                        let piece = piece.get(indent..).unwrap_or(piece.trim_start());
                        self.lines.push((0, piece.to_string()));
                    }
                }
                None => run.push(s.clone()),
            }
        }
        self.always(&mut run)
    }

    /// `run` (emptied) as an always block, if it holds a statement.
    fn always(&mut self, run: &mut VerilogBlock) -> Result<(), Unsupported> {
        if run.is_empty() {
            return Ok(());
        }
        self.write("always @(*) ");
        self.block(&std::mem::take(run))
    }

    fn block(&mut self, b: &VerilogBlock) -> Result<(), Unsupported> {
        self.writeln("begin");
        self.indent += 1;
        self.statements(b)?;
        self.indent -= 1;
        self.lines.push((self.indent, "end".to_string()));
        Ok(())
    }

    fn statements(&mut self, b: &VerilogBlock) -> Result<(), Unsupported> {
        b.iter().try_for_each(|s| self.statement(s))
    }

    fn statement(&mut self, s: &VerilogStatement) -> Result<(), Unsupported> {
        match s {
            VerilogStatement::Assignment(l, r) => {
                self.expr(l)?;
                self.write(" = ");
                self.expr(r)?;
                self.writeln(";");
            }
            VerilogStatement::SliceAssignment {
                base,
                width,
                offset,
                replacement,
            } => {
                match self.element(base)? {
                    Some(e) => {
                        let lo = self.index_text(offset)?;
                        self.write(&e.part(&lo, *width));
                        self.write(" = ");
                    }
                    None => {
                        self.expr(base)?;
                        self.write("[(");
                        self.index_expr(offset)?;
                        self.write(&format!(")+:({width})] = "));
                    }
                }
                self.expr(replacement)?;
                self.writeln(";");
            }
            VerilogStatement::If(c) => {
                self.write("if (");
                self.expr(&c.test)?;
                self.write(") ");
                self.block(&c.then)?;
                match &c.otherwise {
                    VerilogBlockOrConditional::Block(b) => {
                        self.write("else ");
                        self.block(b)?;
                    }
                    VerilogBlockOrConditional::Conditional(c) => {
                        self.write("else ");
                        self.statement(c)?;
                    }
                    VerilogBlockOrConditional::None => {}
                }
            }
            VerilogStatement::Match(m) => {
                self.write("case (");
                self.expr(&m.test)?;
                self.writeln(")");
                self.indent += 1;
                for case in &m.cases {
                    let label = self.name(&case.condition)?;
                    self.write(&label);
                    self.writeln(":");
                    self.indent += 1;
                    self.block(&case.block)?;
                    self.indent -= 1;
                }
                self.indent -= 1;
                self.writeln("endcase");
            }
            VerilogStatement::Loop(l) => {
                if self.looped(l)? {
                    return Ok(());
                }
                for i in l.from.as_usize()..l.to.as_usize() {
                    self.loops.push((l.index.clone(), i as i64));
                    let done = self.statements(&l.block);
                    self.loops.pop();
                    done?;
                }
            }
            VerilogStatement::Comment(c) => self.add(&format!("// {c}")),
            VerilogStatement::Link(links) if links.is_empty() => {}
            VerilogStatement::Link(_) => return Err(Unsupported::Link),
            VerilogStatement::Macro(b) => self.statements(b)?,
        }
        Ok(())
    }

    fn expr(&mut self, e: &VerilogExpression) -> Result<(), Unsupported> {
        match e {
            VerilogExpression::Signal(s) => {
                let name = self.named(s)?.whole();
                self.write(&name);
            }
            VerilogExpression::Literal(v) => self.write(&v.to_string()),
            VerilogExpression::Cast(x, bits) => {
                self.write("((");
                self.expr(x)?;
                self.write(&format!(") & {bits}'h{})", ones_hex(*bits)));
            }
            VerilogExpression::Signed(x) => self.call("$signed(", x)?,
            VerilogExpression::Unsigned(x) => self.call("$unsigned(", x)?,
            VerilogExpression::Paren(x) => self.call("(", x)?,
            VerilogExpression::Binary(l, op, r) => {
                self.expr(l)?;
                self.write(&format!(" {} ", binary(op)));
                self.expr(r)?;
            }
            VerilogExpression::Unary(op, x) => {
                self.write(unary(op));
                self.expr(x)?;
            }
            VerilogExpression::Index(x, i) => match self.element(x)? {
                Some(e) => {
                    let i = self.index_text(i)?;
                    self.write(&e.part(&i, 1).replace(" +: 1]", "]"));
                }
                None => {
                    self.expr(x)?;
                    self.write("[");
                    self.index_expr(i)?;
                    self.write("]");
                }
            },
            VerilogExpression::Slice(x, width, offset) => match self.element(x)? {
                Some(e) => {
                    let lo = self.index_text(offset)?;
                    self.write(&e.part(&lo, *width));
                }
                None => {
                    self.expr(x)?;
                    self.write("[(");
                    self.index_expr(offset)?;
                    self.write(&format!(")+:({width})]"));
                }
            },
            VerilogExpression::IndexReplace(x, i, v) => {
                self.write("(");
                self.expr(x)?;
                self.write(" & ~(1 << (");
                self.expr(i)?;
                self.write(")) | ((");
                self.expr(v)?;
                self.write(") << (");
                self.expr(i)?;
                self.write(")))");
            }
        }
        Ok(())
    }

    fn call(&mut self, open: &str, x: &VerilogExpression) -> Result<(), Unsupported> {
        self.write(open);
        self.expr(x)?;
        self.write(")");
        Ok(())
    }

    /// A name as rust-hdl spells it: a loop variable its value (the
    /// outermost of that name), `self.a.b` as `a$b` without `$next`, and
    /// each `[index]` evaluated, as `$value` (rust-hdl evaluates only the
    /// first: `self.dec[i].cand[k]` would be `dec$0$cand[k]`).
    fn name(&self, raw: &str) -> Result<String, Unsupported> {
        if let Some((_, v)) = self.loops.iter().find(|(var, _)| var == raw) {
            return Ok(v.to_string());
        }
        if self.symbolic.iter().any(|v| v == raw) {
            // A loop variable stands in an index, not as a value (whose
            // width would be the integer's).
            return if self.in_index > 0 {
                Ok(raw.to_string())
            } else {
                Err(Unsupported::Symbolic)
            };
        }
        let raw = raw.strip_prefix('.').unwrap_or(raw);
        let mut x = raw.replace('.', "$").replace("::", "$");
        while let Some(stem) = x.strip_suffix("$next") {
            x.truncate(stem.len());
        }
        while let Some(open) = x.find('[') {
            let Some(close) = x[open..].find(']').map(|c| open + c) else {
                break;
            };
            // Where a name is bound twice, the innermost binding counts.
            let value = eval(&x[open + 1..close], &|var: &str| {
                self.loops.iter().rev().find(|(v, _)| v == var).map(|p| p.1)
            })
            .ok_or_else(|| Unsupported::Index(x.clone()))?;
            x.replace_range(open..=close, &format!("${value}"));
        }
        Ok(x)
    }
}

impl<'a> CodeWriter<'a> {
    /// Writes loop `l` as a Verilog `for` loop where it can be (see
    /// [`combinatorial_looped`]); whether it did.
    fn looped(&mut self, l: &rust_hdl::core::ast::VerilogLoop) -> Result<bool, Unsupported> {
        let Some(vectors) = self.vectors else {
            return Ok(false);
        };
        let var = &l.index;
        let bound = self.loops.iter().any(|(v, _)| v == var) || self.symbolic.contains(var);
        // (A loop of one names a value: written as that value.)
        let once = l.to.as_usize() <= l.from.as_usize() + 1;
        if once || bound || !var.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
            return Ok(false);
        }
        let mut trial = CodeWriter {
            indent: self.indent,
            loops: self.loops.clone(),
            vectors: Some(vectors),
            symbolic: self.symbolic.clone(),
            ..CodeWriter::default()
        };
        trial.symbolic.push(var.clone());
        let (from, to) = (l.from.as_usize(), l.to.as_usize());
        let prefix = std::mem::take(&mut self.buffer);
        trial.write(&format!(
            "{prefix}for ({var} = {from}; {var} < {to}; {var} = {var} + 1) "
        ));
        match trial.block(&l.block) {
            Ok(()) => {
                self.lines.append(&mut trial.lines);
                self.used.append(&mut trial.used);
                self.used.insert(var.clone());
                Ok(true)
            }
            Err(Unsupported::Symbolic) => {
                // Written unrolled; the line begun stays begun.
                self.buffer = prefix;
                Ok(false)
            }
            Err(e) => Err(e),
        }
    }

    /// A name, as an element of a vector where its index holds a loop
    /// variable written as a loop.
    fn named(&self, raw: &str) -> Result<Named, Unsupported> {
        let Some(vectors) = self.vectors else {
            return self.name(raw).map(Named::Plain);
        };
        let raw_name = raw.strip_prefix('.').unwrap_or(raw);
        let x = raw_name.replace('.', "$").replace("::", "$");
        let (Some(open), true) = (x.find('['), !self.symbolic.is_empty()) else {
            return self.name(raw).map(Named::Plain);
        };
        let Some(close) = x[open..].find(']').map(|c| open + c) else {
            return self.name(raw).map(Named::Plain);
        };
        // A second index: an element of a Vec field of an element of a
        // Vec of sub-blocks (`dec[i]$cand[k]`).
        let second = x[close + 1..].find('[').and_then(|o| {
            let o = close + 1 + o;
            x[o..].find(']').map(|c| (o, o + c))
        });
        let mut symbolic = false;
        let mut index_of = |inner: &str| -> Result<String, Unsupported> {
            let toks = tokens(inner).ok_or_else(|| Unsupported::Index(x.clone()))?;
            symbolic |= toks
                .iter()
                .any(|t| matches!(t, Token::Name(n) if self.symbolic.contains(n)));
            self.index_with_values(&toks)
        };
        let first = index_of(&x[open + 1..close])?;
        let (pattern, rest_at, second_index) = match second {
            Some((o, c)) => (
                format!("{}$#{}$#", &x[..open], &x[close + 1..o]),
                c + 1,
                Some(index_of(&x[o + 1..c])?),
            ),
            None => (format!("{}$#", &x[..open]), close + 1, None),
        };
        if !symbolic {
            return self.name(raw).map(Named::Plain);
        }
        let mut rest = x[rest_at..].to_string();
        while let Some(stem) = rest.strip_suffix("$next") {
            rest.truncate(stem.len());
        }
        let found = vectors(&format!("{pattern}{rest}")).ok_or(Unsupported::Symbolic)?;
        let index = match second_index {
            Some(j) => format!("({first})*{}+{j}", found.stride),
            None => first,
        };
        Ok(Named::Element {
            vector: found.vector,
            index,
            width: found.width,
        })
    }

    /// An index's tokens as text, the unrolled loops' values put in and
    /// the loops written as loops left as their variables.
    fn index_with_values(&self, toks: &[Token]) -> Result<String, Unsupported> {
        let mut index = String::new();
        for t in toks {
            match t {
                Token::Num(n) => index.push_str(&n.to_string()),
                Token::Op(c) => index.push(*c),
                Token::Name(n) if self.symbolic.contains(n) => index.push_str(n),
                Token::Name(n) => match self.loops.iter().rev().find(|(v, _)| v == n) {
                    Some((_, v)) => index.push_str(&v.to_string()),
                    None => return Err(Unsupported::Symbolic),
                },
            }
        }
        Ok(index)
    }

    /// Where `x` is a signal that is an element of a vector, that element.
    fn element(&self, x: &VerilogExpression) -> Result<Option<Named>, Unsupported> {
        match x {
            VerilogExpression::Signal(s) => match self.named(s)? {
                e @ Named::Element { .. } => Ok(Some(e)),
                Named::Plain(_) => Ok(None),
            },
            _ => Ok(None),
        }
    }

    /// Writes an index or offset expression (where a loop variable may
    /// stand).
    fn index_expr(&mut self, e: &VerilogExpression) -> Result<(), Unsupported> {
        self.in_index += 1;
        let done = self.expr(e);
        self.in_index -= 1;
        done
    }

    /// An index or offset expression as text.
    fn index_text(&mut self, e: &VerilogExpression) -> Result<String, Unsupported> {
        let held = std::mem::take(&mut self.buffer);
        let done = self.index_expr(e);
        let text = std::mem::replace(&mut self.buffer, held);
        done.map(|()| text)
    }
}

fn binary(op: &VerilogOp) -> &'static str {
    match op {
        VerilogOp::Add => "+",
        VerilogOp::Sub => "-",
        VerilogOp::Mul => "*",
        VerilogOp::LogicalAnd => "&&",
        VerilogOp::LogicalOr => "||",
        VerilogOp::BitXor => "^",
        VerilogOp::BitAnd => "&",
        VerilogOp::BitOr => "|",
        VerilogOp::Shl => "<<",
        VerilogOp::Shr => ">>",
        VerilogOp::Eq => "==",
        VerilogOp::Lt => "<",
        VerilogOp::Le => "<=",
        VerilogOp::Ne => "!=",
        VerilogOp::Ge => ">=",
        VerilogOp::Gt => ">",
    }
}

fn unary(op: &VerilogOpUnary) -> &'static str {
    match op {
        VerilogOpUnary::Not => "~",
        VerilogOpUnary::Neg => "-",
        VerilogOpUnary::All => "&",
        VerilogOpUnary::Any => "|",
        VerilogOpUnary::Xor => "^",
    }
}

/// `2^bits - 1` in hexadecimal digits.
fn ones_hex(bits: usize) -> String {
    if bits == 0 {
        return "0".into();
    }
    let mut s = String::new();
    match bits % 4 {
        1 => s.push('1'),
        2 => s.push('3'),
        3 => s.push('7'),
        _ => {}
    }
    s.push_str(&"f".repeat(bits / 4));
    s
}

/// An index expression of integers, names (`var`), `+ - * / %` and
/// parentheses, evaluated; `None` where it is anything else.
pub fn eval(text: &str, var: &dyn Fn(&str) -> Option<i64>) -> Option<i64> {
    let tokens = tokens(text)?;
    let mut p = Parser {
        tokens: &tokens,
        at: 0,
        var,
    };
    let v = p.sum()?;
    (p.at == tokens.len()).then_some(v)
}

#[derive(Debug, Clone, PartialEq)]
enum Token {
    Num(i64),
    Name(String),
    Op(char),
}

fn tokens(text: &str) -> Option<Vec<Token>> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let c = b[i] as char;
        if c.is_ascii_whitespace() {
            i += 1;
        } else if c.is_ascii_digit() {
            let j = i + b[i..].iter().take_while(|c| c.is_ascii_digit()).count();
            out.push(Token::Num(text[i..j].parse().ok()?));
            i = j;
        } else if c.is_ascii_alphabetic() || c == '_' {
            let j = i + b[i..]
                .iter()
                .take_while(|c| c.is_ascii_alphanumeric() || **c == b'_')
                .count();
            out.push(Token::Name(text[i..j].to_string()));
            i = j;
        } else if "+-*/%()".contains(c) {
            out.push(Token::Op(c));
            i += 1;
        } else {
            return None;
        }
    }
    Some(out)
}

struct Parser<'a> {
    tokens: &'a [Token],
    at: usize,
    var: &'a dyn Fn(&str) -> Option<i64>,
}

impl Parser<'_> {
    fn peek_op(&self) -> Option<char> {
        match self.tokens.get(self.at) {
            Some(Token::Op(c)) => Some(*c),
            _ => None,
        }
    }

    fn sum(&mut self) -> Option<i64> {
        let mut v = self.product()?;
        while let Some(op @ ('+' | '-')) = self.peek_op() {
            self.at += 1;
            let r = self.product()?;
            v = if op == '+' {
                v.checked_add(r)?
            } else {
                v.checked_sub(r)?
            };
        }
        Some(v)
    }

    fn product(&mut self) -> Option<i64> {
        let mut v = self.atom()?;
        while let Some(op @ ('*' | '/' | '%')) = self.peek_op() {
            self.at += 1;
            let r = self.atom()?;
            v = match op {
                '*' => v.checked_mul(r)?,
                '/' => v.checked_div(r)?,
                _ => v.checked_rem(r)?,
            };
        }
        Some(v)
    }

    fn atom(&mut self) -> Option<i64> {
        let t = self.tokens.get(self.at)?.clone();
        self.at += 1;
        match t {
            Token::Num(n) => Some(n),
            Token::Name(n) => (self.var)(&n),
            Token::Op('-') => self.atom()?.checked_neg(),
            Token::Op('(') => {
                let v = self.sum()?;
                (self.peek_op() == Some(')')).then(|| self.at += 1)?;
                Some(v)
            }
            Token::Op(_) => None,
        }
    }
}

/// Every distinct `#[hdl_gen]` code in `top`'s tree that [`combinatorial`]
/// writes differently from rust-hdl's `verilog_combinatorial` (the test's
/// oracle), with both texts; and how many distinct codes were compared.
#[cfg(test)]
pub(crate) fn differences(
    top: &dyn rust_hdl::core::block::Block,
) -> (Vec<(String, String)>, usize) {
    use rust_hdl::core::ast::Verilog;
    use rust_hdl::core::probe::Probe;
    struct Codes(Vec<VerilogBlock>, std::collections::HashSet<String>);
    impl Probe for Codes {
        fn visit_start_scope(&mut self, _name: &str, node: &dyn rust_hdl::core::block::Block) {
            if let Verilog::Combinatorial(b) = node.hdl() {
                let b = without_verbatim(&b);
                // rust-hdl writes a name indexed twice wrong (`dec$0$cand[k]`
                // for `dec[i].cand[k]`): such code has the co-simulation as
                // its oracle instead.
                let key = format!("{b:?}");
                if indexed_twice(&key) {
                    return;
                }
                if self.1.insert(key) {
                    self.0.push(b);
                }
            }
        }
    }
    let mut codes = Codes(Vec::new(), Default::default());
    top.accept("top", &mut codes);
    let diffs = codes
        .0
        .iter()
        .filter_map(|b| {
            let theirs = rust_hdl::core::verilog_gen::verilog_combinatorial(b);
            let ours = combinatorial(b).unwrap_or_else(|e| format!("{e:?}"));
            (ours != theirs).then_some((ours, theirs))
        })
        .collect();
    (diffs, codes.0.len())
}

/// Whether the debug text of a code names a signal indexed twice
/// (`Signal("dec[i]$cand[k]")`).
#[cfg(test)]
fn indexed_twice(debug: &str) -> bool {
    debug.split("Signal(\"").skip(1).any(|rest| {
        let name = rest.split('"').next().unwrap_or("");
        name.matches('[').count() >= 2
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_name_indexed_twice_is_written_with_both_indices() {
        use rust_hdl::core::ast::VerilogLoop;
        // for i in 0..2 { for k in 0..2 { y[i * 2 + k] = dec[i].cand[k]; } }
        let inner = VerilogStatement::Assignment(
            VerilogExpression::Signal("y[i*2+k]$next".into()),
            VerilogExpression::Signal("dec[i]$cand[k]".into()),
        );
        let lp = |index: &str, block| {
            VerilogStatement::Loop(VerilogLoop {
                index: index.into(),
                from: 0_usize.into(),
                to: 2_usize.into(),
                block,
            })
        };
        let code = vec![lp("i", vec![lp("k", vec![inner])])];
        let text = combinatorial(&code).unwrap();
        assert!(text.contains("y$3 = dec$1$cand$1;"), "{text}");
        assert!(text.contains("y$1 = dec$0$cand$1;"), "{text}");
        assert!(indexed_twice(&format!("{code:?}")));
        // Looped where both are vectors: the second index strides by the
        // sub-blocks' count of the field.
        let vectors = |p: &str| match p {
            "y$#" => Some(found("y", 1)),
            "dec$#$cand$#" => Some(Found {
                vector: "dec_cand".to_string(),
                width: 1,
                stride: 2,
            }),
            _ => None,
        };
        let (text, _) = combinatorial_looped(&code, &vectors).unwrap();
        assert!(text.contains("y[i*2+k] = dec_cand[(i)*2+k];"), "{text}");
    }

    #[test]
    fn indices_evaluate_with_precedence_and_bound_names() {
        let var = |n: &str| (n == "i").then_some(5);
        assert_eq!(eval("((i+1))", &var), Some(6));
        assert_eq!(eval("i*2+1", &var), Some(11));
        assert_eq!(eval("(i+1)*2 % 4", &var), Some(0));
        assert_eq!(eval("7 / 2 - -1", &var), Some(4));
        assert_eq!(eval("j", &var), None);
        assert_eq!(eval("i+", &var), None);
        assert_eq!(eval("i << 1", &var), None);
    }

    /// `for i in 0..3 { self.y[i].next = self.x[i].val() & self.z[i].q.val() }`,
    /// and the same with `self.n.next = i` inside.
    fn vec_loop(value_too: bool) -> VerilogBlock {
        use rust_hdl::core::ast::VerilogLoop;
        let sig = |n: &str| VerilogExpression::Signal(n.to_string());
        let and = VerilogExpression::Binary(
            Box::new(sig(".x[i]")),
            VerilogOp::BitAnd,
            Box::new(sig(".z[i].q")),
        );
        let mut body = vec![VerilogStatement::Assignment(sig(".y[i].next"), and)];
        if value_too {
            body.push(VerilogStatement::Assignment(sig(".n.next"), sig("i")));
        }
        vec![VerilogStatement::Loop(VerilogLoop {
            index: "i".into(),
            from: 0usize.into(),
            to: 3usize.into(),
            block: body,
        })]
    }

    fn found(vector: &str, width: usize) -> Found {
        Found {
            vector: vector.to_string(),
            width,
            stride: 1,
        }
    }

    #[test]
    fn a_loop_over_vectors_is_written_as_a_loop() {
        let vectors = |p: &str| match p {
            "x$#" => Some(found("x", 1)),
            "y$#" => Some(found("y", 1)),
            "z$#$q" => Some(found("z", 4)),
            _ => None,
        };
        let (text, vars) = combinatorial_looped(&vec_loop(false), &vectors).unwrap();
        assert_eq!(
            text,
            "always @(*) begin\n    for (i = 0; i < 3; i = i + 1) begin\n        \
             y[i] = x[i] & z[(i)*4 +: 4];\n    end\nend\n\n"
        );
        assert_eq!(vars, vec!["i".to_string()]);
        // The variable as a value (its width would be the integer's), or a
        // name that is no vector's element: unrolled, as rust-hdl writes it.
        let (text, vars) = combinatorial_looped(&vec_loop(true), &vectors).unwrap();
        assert_eq!(text, combinatorial(&vec_loop(true)).unwrap());
        assert!(
            text.contains("y$2 = x$2 & z$2$q;") && vars.is_empty(),
            "{text}"
        );
        let none = |_: &str| None;
        let (text, _) = combinatorial_looped(&vec_loop(false), &none).unwrap();
        assert_eq!(text, combinatorial(&vec_loop(false)).unwrap());
    }

    #[test]
    fn masks_are_all_ones() {
        assert_eq!(ones_hex(1), "1");
        assert_eq!(ones_hex(4), "f");
        assert_eq!(ones_hex(6), "3f");
        assert_eq!(ones_hex(11), "7ff");
    }
}
