//! Whole-router properties, on the top module's ports and the protocol of
//! docs/interface.md only (no internal signal names), checked to a
//! bounded depth ([`Proof::cex_depth`]) with ABC's `bmc3`: the router's
//! state is too large for the unbounded engine within a test's time, and
//! Z3 does not reach even this depth in minutes.
//!
//! Assumed of the environment (docs/interface.md, "Flow control" and
//! "Packets"): senders keep per input VC a credit count starting at D and
//! never send without a credit; a VC's flits come as packets (a head,
//! then non-head flits until a tail); VC numbers are below V; downstream
//! returns a credit only for a flit it holds. The routing fields of heads
//! are arbitrary.

use std::fmt::Write as _;

use super::text::{init_block, join};
use super::Proof;
use crate::error::Result;
use crate::spec::{FlowControl, RouterSpec};

/// Bounded depth of the router proof, in cycles after reset: `bmc3`
/// checks 5 steps of a 5-port 2-VC router in seconds, and its sixth step
/// took minutes (docs/prove.md).
pub const DEPTH: usize = 5;

/// The router proof of `spec` (credit flow control): credit safety on
/// every output VC, credits returned at most once per flit received, no
/// flit created, and packets contiguous on each output VC.
pub fn proof(spec: &RouterSpec) -> Result<Proof> {
    if spec.flow_control != FlowControl::Credit {
        return Err(crate::error::Error::InvalidSpec(
            "the router proof is written for credit flow control; \
             --flow-control on-off has no router proof yet"
                .into(),
        ));
    }
    let rtl = crate::router::verilog(spec)?;
    let name = spec.name();
    let node_bits = crate::router::node_id_bits(spec)?;
    let ports = spec.physical_ports() as usize;
    let v = spec.vcs as usize;
    let w = spec.flit_width as usize;
    let d = spec.buffer_depth as usize;
    let vb = crate::router::vc_bits(spec.vcs) as usize;
    let top = format!("{name}_formal");
    let mut s = String::new();
    let mut inputs = vec!["input clk".to_string(), "input rst".to_string()];
    if let Some(b) = node_bits {
        inputs.push(format!("input [{}:0] node_id", b - 1));
    }
    let mut conn = vec![".clk(clk)".to_string(), ".rst(rst)".to_string()];
    if node_bits.is_some() {
        conn.push(".node_id(node_id)".into());
    }
    for p in 0..ports {
        inputs.push(format!(
            "input [{w1}:0] p{p}_in_data, input p{p}_in_valid, input p{p}_in_head, \
             input p{p}_in_tail, input [{vb1}:0] p{p}_in_vc, input [{v1}:0] p{p}_out_credit",
            w1 = w - 1,
            vb1 = vb - 1,
            v1 = v - 1
        ));
        for sig in [
            "in_data",
            "in_valid",
            "in_head",
            "in_tail",
            "in_vc",
            "out_credit",
            "in_credit",
            "out_data",
            "out_valid",
            "out_head",
            "out_tail",
            "out_vc",
        ] {
            conn.push(format!(".p{p}_{sig}(p{p}_{sig})"));
        }
    }
    let _ = writeln!(s, "module {top}({});", inputs.join(",\n  "));
    s.push_str("  wire clock = clk;\n");
    for p in 0..ports {
        let _ = writeln!(
            s,
            "  wire [{v1}:0] p{p}_in_credit; wire [{w1}:0] p{p}_out_data;\n  \
             wire p{p}_out_valid, p{p}_out_head, p{p}_out_tail; wire [{vb1}:0] p{p}_out_vc;",
            v1 = v - 1,
            w1 = w - 1,
            vb1 = vb - 1
        );
    }
    let _ = writeln!(s, "  {name} dut({});", conn.join(", "));
    s.push_str(init_block());
    let c = 7; // counter bits: up to P V D flits held
    let _ = writeln!(s, "  reg [15:0] flits_in = 0, flits_out = 0;");
    for p in 0..ports {
        for vc in 0..v {
            let _ = write!(
                s,
                "  reg [{c}:0] sc{p}_{vc} = 0, cr{p}_{vc} = 0;
  reg inpkt{p}_{vc} = 1'b0, outpkt{p}_{vc} = 1'b0;
  wire rx{p}_{vc} = p{p}_in_valid && p{p}_in_vc == {vc};
  wire tx{p}_{vc} = p{p}_out_valid && p{p}_out_vc == {vc};
  always @(*) if (!init && !rst) begin
    if (rx{p}_{vc}) assume(sc{p}_{vc} != 0 && p{p}_in_head == !inpkt{p}_{vc});
    if (p{p}_out_credit[{vc}]) assume(cr{p}_{vc} < {d});
  end
  always @(posedge clk)
    if (rst) begin
      sc{p}_{vc} <= {d}; cr{p}_{vc} <= {d}; inpkt{p}_{vc} <= 1'b0; outpkt{p}_{vc} <= 1'b0;
    end else begin
      sc{p}_{vc} <= sc{p}_{vc} - rx{p}_{vc} + p{p}_in_credit[{vc}];
      cr{p}_{vc} <= cr{p}_{vc} - tx{p}_{vc} + p{p}_out_credit[{vc}];
      if (rx{p}_{vc}) inpkt{p}_{vc} <= !p{p}_in_tail;
      if (tx{p}_{vc}) outpkt{p}_{vc} <= !p{p}_out_tail;
    end
  always @(*) if (!init && !rst) begin
    if (tx{p}_{vc}) assert(cr{p}_{vc} != 0);
    if (tx{p}_{vc}) assert(p{p}_out_head == !outpkt{p}_{vc});
    assert(sc{p}_{vc} <= {d});
    if (p{p}_in_credit[{vc}]) assert(sc{p}_{vc} < {d});
  end
"
            );
        }
        let _ = writeln!(
            s,
            "  always @(*) if (!init && !rst) begin\n    \
             if (p{p}_in_valid) assume(p{p}_in_vc < {v});\n    \
             if (p{p}_out_valid) assert(p{p}_out_vc < {v});\n  end"
        );
    }
    let ins = join(ports, " + ", |p| format!("p{p}_in_valid"));
    let outs = join(ports, " + ", |p| format!("p{p}_out_valid"));
    let _ = write!(
        s,
        "  always @(posedge clk)
    if (rst) begin flits_in <= 0; flits_out <= 0; end
    else begin flits_in <= flits_in + {ins}; flits_out <= flits_out + {outs}; end
  always @(*) if (!init) assert(flits_out <= flits_in);
endmodule
"
    );
    Ok(Proof {
        name: name.clone(),
        top,
        sources: vec![(format!("{name}.v"), rtl), (format!("{name}_formal.sv"), s)],
        cex_depth: DEPTH,
        bounded: true,
        properties: vec![
            "credit safety: never a flit out on a VC without a downstream credit".into(),
            "input credits: never more returned than flits received (at most once per flit)".into(),
            "no flit created: flits out never exceed flits in".into(),
            "packets contiguous on each output VC: a head only after a tail, nothing else between"
                .into(),
            "output VC numbers below V".into(),
        ],
    })
}
