//! The synthesis wrapper: serial scan chains that drive every router input
//! from a flip-flop and capture every router output, so that Yosys keeps
//! all of the router's logic with only five pins (templates/synth/).

use serde::Serialize;

use crate::error::{Error, Result};

/// Name of the wrapper's top module.
pub const WRAPPER_TOP: &str = "routergen_synth_top";

const TEMPLATE: &str = include_str!("../../templates/synth/scan_wrapper.v.tera");

/// One port of a module header.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PortDecl {
    /// The port's name.
    pub name: String,
    /// Its width in bits.
    pub width: u32,
    /// Whether it is an input.
    pub input: bool,
}

/// The ports of module `module` in `verilog`, read from its ANSI header
/// (`input wire [15:0] p0_in_data,`), as the router's top module is written
/// (docs/interface.md).
pub fn module_ports(verilog: &str, module: &str) -> Result<Vec<PortDecl>> {
    let missing = || {
        Error::InvalidSpec(format!(
            "the router Verilog has no module {module} with an ANSI port list"
        ))
    };
    let start = verilog
        .find(&format!("module {module} ("))
        .ok_or_else(missing)?;
    // Comments dropped first: they may hold commas and parentheses.
    let rest: String = verilog[start..]
        .lines()
        .map(|l| l.split("//").next().unwrap_or(""))
        .collect::<Vec<_>>()
        .join("\n");
    let open = rest.find('(').ok_or_else(missing)?;
    let close = rest.find(");").ok_or_else(missing)?;
    let mut ports = Vec::new();
    for decl in rest[open + 1..close].split(',') {
        let words: Vec<&str> = decl
            .split_whitespace()
            .filter(|w| *w != "wire" && *w != "reg")
            .collect();
        if words.is_empty() {
            continue;
        }
        let input = match words[0] {
            "input" => true,
            "output" => false,
            other => {
                return Err(Error::InvalidSpec(format!(
                    "module {module}: cannot read the port declaration starting with {other:?}"
                )))
            }
        };
        let (width, name) = match words.as_slice() {
            [_, range, name] => (range_width(range).ok_or_else(missing)?, *name),
            [_, name] => (1, *name),
            _ => return Err(missing()),
        };
        ports.push(PortDecl {
            name: name.to_string(),
            width,
            input,
        });
    }
    Ok(ports)
}

/// Width of `[hi:lo]`.
fn range_width(range: &str) -> Option<u32> {
    let inner = range.strip_prefix('[')?.strip_suffix(']')?;
    let (hi, lo) = inner.split_once(':')?;
    let (hi, lo): (u32, u32) = (hi.trim().parse().ok()?, lo.trim().parse().ok()?);
    Some(hi.max(lo) - hi.min(lo) + 1)
}

#[derive(Serialize)]
struct Slice {
    name: String,
    hi: u32,
    lo: u32,
}

/// The wrapped design: the wrapper module's text and its chain lengths.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Wrapper {
    #[serde(skip)]
    /// The wrapper module's Verilog.
    pub verilog: String,
    /// Router input bits driven from the input chain (all inputs but clk and rst).
    pub input_bits: u32,
    /// Router output bits captured by the output chain.
    pub output_bits: u32,
}

impl Wrapper {
    /// Flip-flops the wrapper itself adds: one per chain bit.
    pub fn flip_flops(&self) -> u32 {
        self.input_bits + self.output_bits
    }
}

/// The wrapper of module `router` (whose Verilog is `verilog`).
pub fn wrap(verilog: &str, router: &str) -> Result<Wrapper> {
    let ports = module_ports(verilog, router)?;
    let mut inputs = Vec::new();
    let mut outputs = Vec::new();
    let (mut in_bits, mut out_bits) = (0u32, 0u32);
    for p in ports {
        if p.input && (p.name == "clk" || p.name == "rst") {
            continue;
        }
        let bits = if p.input { &mut in_bits } else { &mut out_bits };
        let slice = Slice {
            hi: *bits + p.width - 1,
            lo: *bits,
            name: p.name,
        };
        *bits += p.width;
        if p.input {
            inputs.push(slice);
        } else {
            outputs.push(slice);
        }
    }
    if in_bits < 2 || out_bits < 2 {
        return Err(Error::InvalidSpec(format!(
            "module {router} has {in_bits} input and {out_bits} output bits besides clk and \
             rst; the scan wrapper needs at least 2 of each"
        )));
    }
    let mut ctx = tera::Context::new();
    ctx.insert("top", WRAPPER_TOP);
    ctx.insert("name", router);
    ctx.insert("inputs", &inputs);
    ctx.insert("outputs", &outputs);
    ctx.insert("in_bits", &in_bits);
    ctx.insert("out_bits", &out_bits);
    let text = tera::Tera::one_off(TEMPLATE, &ctx, false)
        .map_err(|e| Error::template("scan wrapper", &e))?;
    Ok(Wrapper {
        verilog: text,
        input_bits: in_bits,
        output_bits: out_bits,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const HEADER: &str = "module r (
    input wire clk,
    input wire rst,
    input wire [15:0] p0_in_data, // data
    // Node 0's port (id 2'h0, coordinates (0, 0)).
    input wire p0_in_valid,
    output wire [1:0] p0_in_credit,
    output wire [15:0] p0_out_data
);
endmodule
";

    #[test]
    fn ports_are_read_from_the_ansi_header() {
        let p = module_ports(HEADER, "r").unwrap();
        let names: Vec<(&str, u32, bool)> = p
            .iter()
            .map(|p| (p.name.as_str(), p.width, p.input))
            .collect();
        assert_eq!(
            names,
            [
                ("clk", 1, true),
                ("rst", 1, true),
                ("p0_in_data", 16, true),
                ("p0_in_valid", 1, true),
                ("p0_in_credit", 2, false),
                ("p0_out_data", 16, false)
            ]
        );
        assert!(module_ports(HEADER, "missing").is_err());
    }

    #[test]
    fn chains_cover_every_input_and_output_bit() {
        let w = wrap(HEADER, "r").unwrap();
        assert_eq!((w.input_bits, w.output_bits), (17, 18));
        assert!(w.verilog.contains(".p0_in_data(chain_in[15:0])"));
        assert!(w.verilog.contains(".p0_in_valid(chain_in[16:16])"));
        assert!(w.verilog.contains(".p0_out_data(outs[17:2])"));
    }
}
