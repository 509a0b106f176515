//! Vec fields as Verilog vectors: the elements `x$0` .. `x$(n-1)` of a
//! rust-hdl `Vec` of signals, registers or sub-blocks become one vector
//! `x` (element k of w bits at `x[k*w +: w]`, or `x[k]` for one bit), so a
//! module declares, connects and clocks each Vec once.

use std::collections::HashMap;

use crate::error::{Error, Result};

/// The elements `stem$0` .. `stem$(n-1)` of a Vec.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Group<K> {
    pub stem: String,
    pub n: usize,
    pub key: K,
}

/// The Vecs among `items` (name, key): each stem whose elements `stem$k`
/// are exactly 0..n with one key, n at least 2 (a Vec of one, such as a
/// block present or not, keeps its name `x_0`), the stem itself not an
/// item and not a word Verilog reserves. In the order of each group's
/// first element.
pub fn groups<K: PartialEq + Clone>(items: &[(&str, K)]) -> Vec<Group<K>> {
    let names: std::collections::HashSet<&str> = items.iter().map(|(n, _)| *n).collect();
    let mut found: Vec<(String, Vec<(usize, K)>)> = Vec::new();
    let mut at: HashMap<String, usize> = HashMap::new();
    for (name, key) in items {
        let Some((stem, k)) = split_index(name) else {
            continue;
        };
        let slot = *at.entry(stem.to_string()).or_insert_with(|| {
            found.push((stem.to_string(), Vec::new()));
            found.len() - 1
        });
        found[slot].1.push((k, key.clone()));
    }
    found
        .into_iter()
        .filter_map(|(stem, mut elems)| {
            elems.sort_by_key(|(k, _)| *k);
            let key = elems[0].1.clone();
            let whole = elems
                .iter()
                .enumerate()
                .all(|(i, (k, ky))| *k == i && *ky == key);
            let free = !names.contains(stem.as_str()) && !RESERVED.contains(&stem.as_str());
            (whole && elems.len() >= 2 && free).then(|| Group {
                stem,
                n: elems.len(),
                key,
            })
        })
        .collect()
}

/// Words of Verilog and SystemVerilog a field may be named by (`x$3` is
/// `x_3`, but a vector takes the field's own name).
const RESERVED: &[&str] = &[
    "alias",
    "always",
    "and",
    "assert",
    "assign",
    "assume",
    "automatic",
    "before",
    "begin",
    "bind",
    "bit",
    "break",
    "buf",
    "byte",
    "case",
    "cell",
    "chandle",
    "class",
    "clocking",
    "config",
    "const",
    "constraint",
    "context",
    "continue",
    "cover",
    "default",
    "design",
    "disable",
    "dist",
    "do",
    "edge",
    "else",
    "end",
    "enum",
    "event",
    "expect",
    "export",
    "extends",
    "extern",
    "final",
    "for",
    "force",
    "foreach",
    "forever",
    "fork",
    "function",
    "generate",
    "genvar",
    "global",
    "if",
    "iff",
    "import",
    "initial",
    "inout",
    "input",
    "inside",
    "instance",
    "int",
    "integer",
    "interface",
    "join",
    "let",
    "library",
    "local",
    "localparam",
    "logic",
    "longint",
    "module",
    "nand",
    "negedge",
    "new",
    "nor",
    "not",
    "null",
    "or",
    "output",
    "package",
    "packed",
    "parameter",
    "posedge",
    "priority",
    "program",
    "property",
    "protected",
    "pure",
    "rand",
    "real",
    "ref",
    "reg",
    "release",
    "repeat",
    "restrict",
    "return",
    "sequence",
    "shortint",
    "signed",
    "small",
    "solve",
    "static",
    "string",
    "struct",
    "super",
    "supply0",
    "supply1",
    "table",
    "task",
    "this",
    "time",
    "tri",
    "type",
    "typedef",
    "union",
    "unique",
    "unsigned",
    "use",
    "var",
    "virtual",
    "void",
    "wait",
    "wand",
    "weak",
    "while",
    "wire",
    "with",
    "wor",
    "xnor",
    "xor",
];

/// `x$3` as (`x`, 3).
pub fn split_index(name: &str) -> Option<(&str, usize)> {
    let (stem, k) = name.rsplit_once('$')?;
    if k.is_empty() || !k.bytes().all(|b| b.is_ascii_digit()) || (k.len() > 1 && k.starts_with('0'))
    {
        return None;
    }
    Some((stem, k.parse().ok()?))
}

/// Where a name's bits now live: element `index` (of `width` bits) of the
/// vector `vector`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Elem {
    pub vector: String,
    pub index: usize,
    pub width: usize,
}

impl Elem {
    /// The bits of the element `[lo +: width]` of it, `None` for all.
    pub fn select(&self, part: Option<(String, usize)>) -> String {
        let base = self.index * self.width;
        match part {
            None if self.width == 1 => format!("{}[{base}]", self.vector),
            None => format!("{}[{base} +: {}]", self.vector, self.width),
            Some((lo, 1)) => format!("{}[{}]", self.vector, offset(base, &lo)),
            Some((lo, w)) => format!("{}[{} +: {w}]", self.vector, offset(base, &lo)),
        }
    }
}

/// `base + lo`, folded where `lo` is a number.
fn offset(base: usize, lo: &str) -> String {
    let lo = lo.trim();
    let bare = lo
        .strip_prefix('(')
        .and_then(|l| l.strip_suffix(')'))
        .filter(|l| !l.contains(['(', ')']))
        .unwrap_or(lo)
        .trim();
    match bare.parse::<usize>() {
        Ok(v) => (base + v).to_string(),
        Err(_) if base == 0 => bare.to_string(),
        Err(_) => format!("{base} + {lo}"),
    }
}

/// `text` with each name in `elems` written as its element of a vector,
/// a bit or part select after it (`[7:0]`, `[(o)+:(4)]`, `[3]`) taken into
/// the element's.
pub fn map_elements(text: &str, elems: &HashMap<String, Elem>) -> Result<String> {
    if elems.is_empty() {
        return Ok(text.to_string());
    }
    let b = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    let mut copied = 0;
    while i < b.len() {
        let c = b[i];
        let ident = |c: u8| c.is_ascii_alphanumeric() || c == b'_' || c == b'$';
        if (c.is_ascii_alphabetic() || c == b'_')
            && (i == 0 || !(ident(b[i - 1]) || b[i - 1] == b'\''))
        {
            let mut j = i;
            while j < b.len() && ident(b[j]) {
                j += 1;
            }
            if let Some(e) = elems.get(&text[i..j]) {
                out.push_str(&text[copied..i]);
                let mut end = j;
                let mut part = None;
                if b.get(j) == Some(&b'[') {
                    let close = matching(text, j).ok_or_else(|| {
                        Error::Internal(format!("an unclosed select after `{}`", &text[i..j]))
                    })?;
                    part = Some(parse_select(&text[j + 1..close], e, &text[i..j])?);
                    end = close + 1;
                }
                out.push_str(&e.select(part));
                copied = end;
                i = end;
                continue;
            }
            i = j;
        } else if c == b'$' || c.is_ascii_digit() || c == b'\'' {
            i += 1;
            while i < b.len() && (ident(b[i]) || b[i] == b'\'') {
                i += 1;
            }
        } else {
            i += 1;
        }
    }
    out.push_str(&text[copied..]);
    Ok(out)
}

/// The `]` closing the `[` at `open`.
fn matching(text: &str, open: usize) -> Option<usize> {
    let mut depth = 0;
    for (k, c) in text[open..].char_indices() {
        match c {
            '[' => depth += 1,
            ']' => {
                depth -= 1;
                if depth == 0 {
                    return Some(open + k);
                }
            }
            _ => {}
        }
    }
    None
}

/// A select's low bit and width: `hi:lo` (numbers), `(lo)+:(w)`, or a bit.
fn parse_select(sel: &str, e: &Elem, name: &str) -> Result<(String, usize)> {
    let bad = || {
        Error::Internal(format!(
            "the Verilog writer cannot take the select `[{sel}]` of `{name}` into its vector"
        ))
    };
    if let Some((lo, w)) = sel.split_once("+:") {
        let w = w
            .trim()
            .trim_start_matches('(')
            .trim_end_matches(')')
            .trim();
        let w: usize = w.parse().map_err(|_| bad())?;
        return Ok((lo.trim().to_string(), w));
    }
    if let Some((hi, lo)) = sel.split_once(':') {
        let (hi, lo): (usize, usize) = (
            hi.trim().parse().map_err(|_| bad())?,
            lo.trim().parse().map_err(|_| bad())?,
        );
        if hi < lo || hi >= e.width {
            return Err(bad());
        }
        return Ok((lo.to_string(), hi - lo + 1));
    }
    if e.width == 1 {
        return match sel.trim() {
            "0" => Ok(("0".into(), 1)),
            _ => Err(bad()),
        };
    }
    Ok((format!("({})", sel.trim()), 1))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vecs_are_whole_runs_of_one_key() {
        let items = [
            ("a$0", 1),
            ("a$1", 1),
            ("b$0", 4),
            ("b$2", 4),
            ("c$0", 1),
            ("c$1", 2),
            ("d", 1),
            ("d$0", 1),
            ("e$0$x", 1),
            ("f$01", 1),
            ("g$0", 1),
            ("class$0", 1),
            ("class$1", 1),
        ];
        assert_eq!(
            groups(&items),
            vec![Group {
                stem: "a".into(),
                n: 2,
                key: 1
            }]
        );
    }

    #[test]
    fn elements_take_their_selects() {
        let mut m = HashMap::new();
        let e = |v: &str, index, width| Elem {
            vector: v.into(),
            index,
            width,
        };
        m.insert("x$3$d".to_string(), e("x_d", 3, 32));
        m.insert("y$2".to_string(), e("y", 2, 1));
        let t = "y$2 = x$3$d[31:8] | x$3$d[(o)+:(4)] | x$3$d[5] | x$3$d | 1'b0 | zy$2;";
        assert_eq!(
            map_elements(t, &m).unwrap(),
            "y[2] = x_d[104 +: 24] | x_d[96 + (o) +: 4] | x_d[101] | x_d[96 +: 32] | 1'b0 | zy$2;"
        );
        assert!(map_elements("x$3$d[40:0]", &m).is_err());
        assert!(map_elements("y$2[1]", &m).is_err());
    }
}
