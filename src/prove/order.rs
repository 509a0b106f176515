//! Order and conservation of the whole router by a tracked flit, proved
//! unbounded with ABC's PDR.
//!
//! The solver picks a source, an input VC `s0` (`anyconst`), and may mark
//! one of its flits, the tracked flit. Two payload bits above the routing
//! field carry the tags: bit A is set on every flit of `s0` and only
//! there, bit M on the tracked flit only. The harness counts the flits of
//! `s0` inside the router and, when the tracked flit arrives, how many of
//! them are ahead of it. It asserts, on the output ports:
//!
//! - no flit of `s0` leaves that is not inside (none created or
//!   duplicated);
//! - the tracked flit leaves once, and only when every flit of `s0` that
//!   arrived before it has left (none overtaken, none lost ahead of it);
//! - while the tracked flit is inside, no flit of `s0` leaves that came
//!   after it (nothing overtakes it, and it is not lost: the flit behind a
//!   lost tracked flit would leave first);
//! - on each output VC, packets are framed (a head only after the
//!   previous packet's tail) and every non-head flit carries its head's
//!   bit A, so a packet's flits are not interleaved with another source's.
//!
//! Since `s0` and the tracked flit are arbitrary, this covers every flit
//! of every input VC. The payload bits above the tags are read by no
//! assertion and fall out of the design the solver sees. The environment
//! and the credit properties are the credit proof's
//! ([`super::router::credit_harness`]).

use std::fmt::Write as _;

use super::router::{bits_for, credit_harness, credit_properties, DEPTH};
use super::text::join;
use super::Proof;
use crate::error::Result;
use crate::spec::RouterSpec;

/// The router's order and conservation proof (credit flow control, the
/// unified datapath with flip-flop buffers, a flit with two payload bits
/// above the routing field; `None` otherwise).
pub fn proof(spec: &RouterSpec) -> Result<Option<Proof>> {
    let name = spec.name();
    let top = format!("{name}_order_formal");
    let h = spec.header_bits() as usize;
    if (spec.flit_width as usize) < h + 2 {
        return Ok(None);
    }
    let Some(mut hs) = credit_harness(spec, &top)? else {
        return Ok(None);
    };
    let ports = spec.physical_ports() as usize;
    let v = spec.vcs as usize;
    let sources = ports * v;
    let d = spec.buffer_depth as usize;
    let (a, m) = (h, h + 1);
    let sb = bits_for(sources);
    let cb = bits_for(d + 1) + 1;
    let ob = bits_for(ports + 1);
    let s = &mut hs.text;
    let _ = writeln!(
        s,
        "  (* anyconst *) reg [{s1}:0] s0;\n  always @(*) assume(s0 < {sources});\n  \
         reg min = 1'b0, mout = 1'b0; reg [{c1}:0] ins0 = 0, ahead = 0;",
        s1 = sb - 1,
        c1 = cb - 1
    );
    for p in 0..ports {
        let _ = writeln!(
            s,
            "  always @(*) if (!init && !rst && p{p}_in_valid) begin\n    \
             assume(p{p}_in_data[{a}] == ({p} * {v} + p{p}_in_vc == s0));\n    \
             if (p{p}_in_data[{m}]) assume(p{p}_in_data[{a}] && !min);\n  end"
        );
    }
    // The flits of s0 on the inputs or outputs, `mark` "" (all), "M" (the
    // tracked one) or "U" (the others).
    let sum = |side: &str, mark: &str| {
        join(ports, " + ", |p| {
            let bit = format!("p{p}_{side}_data[{m}]");
            let cond = match mark {
                "M" => format!(" && {bit}"),
                "U" => format!(" && !{bit}"),
                _ => String::new(),
            };
            format!("(p{p}_{side}_valid && p{p}_{side}_data[{a}]{cond})")
        })
    };
    let _ = write!(
        s,
        "  wire a_in = ({ain}) != 0;
  wire m_in = ({min}) != 0;
  wire [{o1}:0] n_out = {nout};
  wire [{o1}:0] m_out = {mout};
  wire [{o1}:0] u_out = {uout};
  always @(*) if (!init && !rst) begin
    assert(n_out <= ins0);
    if (m_out != 0) assert(m_out == 1 && min && !mout && ahead == 0 && u_out == 0);
    if (min && !mout && u_out != 0) assert(u_out <= ahead);
  end
  always @(posedge clk)
    if (rst) begin min <= 1'b0; mout <= 1'b0; ins0 <= 0; ahead <= 0; end
    else begin
      ins0 <= ins0 + a_in - n_out;
      if (m_in) begin min <= 1'b1; ahead <= ins0 - n_out; end
      else if (min && !mout) ahead <= ahead - u_out;
      if (m_out != 0) mout <= 1'b1;
    end
",
        ain = sum("in", ""),
        min = sum("in", "M"),
        nout = sum("out", ""),
        mout = sum("out", "M"),
        uout = sum("out", "U"),
        o1 = ob - 1,
    );
    for p in 0..ports {
        for vc in 0..v {
            let i = p * v + vc;
            let _ = write!(
                s,
                "  reg ha{i} = 1'b0, op{i} = 1'b0;
  always @(posedge clk)
    if (rst) begin ha{i} <= 1'b0; op{i} <= 1'b0; end
    else if (tx{i}) begin op{i} <= !p{p}_out_tail; if (p{p}_out_head) ha{i} <= p{p}_out_data[{a}]; end
  always @(*) if (!init && !rst && tx{i}) begin
    assert(p{p}_out_head == !op{i});
    if (!p{p}_out_head) assert(p{p}_out_data[{a}] == ha{i});
  end
"
            );
        }
    }
    let mut properties = vec![
        "conservation: no flit of an input VC leaves that is not inside the router".to_string(),
        "order: a tracked flit (any flit of any input VC) leaves once, after every flit of its \
         input VC that arrived before it and before every flit that arrived after it"
            .into(),
        "packets: on each output VC a head only after a tail, and a packet's flits all from its \
         head's input VC"
            .into(),
    ];
    properties.extend(credit_properties());
    Ok(Some(hs.proof(
        &name,
        "order",
        &top,
        properties,
        DEPTH,
        Vec::new(),
    )))
}
