//! Property harnesses of the router blocks (docs/blocks.md states each
//! block's contract; docs/prove.md lists what is proved).
//!
//! Every harness names the block's ports as docs/blocks.md does (element
//! k of a port vector is the scalar `x_k`) and gathers them into vectors
//! of its own. Free harness inputs are the block's inputs, which the
//! solver drives arbitrarily within the assumptions.

use std::fmt::Write as _;

use super::text::{init_block, join};
use super::Proof;
use crate::blocks::{BlockKind, BlockParams};
use crate::error::{Error, Result};
use crate::spec::{Addressing, BufferStorage, PathSelection};

/// Bits of the harness's counters (depths and credits up to 16).
const CB: usize = 6;

/// The blocks that have a proof.
pub const PROVED: [BlockKind; 8] = [
    BlockKind::FlowControlUnit,
    BlockKind::Crossbar,
    BlockKind::RoutingArbiter,
    BlockKind::VcController,
    BlockKind::HeaderSelector,
    BlockKind::AddressDecoder,
    BlockKind::EconomicalStorageTable,
    BlockKind::LookaheadMux,
];

/// The proof of block `kind` with `params`, or an error naming the blocks
/// that have one.
pub fn proof(kind: BlockKind, params: &BlockParams) -> Result<Proof> {
    kind.check(params)?;
    let module = kind.module_name(params);
    let rtl = kind.verilog(params)?;
    let mut sources = vec![(format!("{}.v", kind.name()), rtl)];
    let (harness, properties, depth) = match kind {
        BlockKind::FlowControlUnit => {
            if params.buffers != BufferStorage::Flops {
                let flops = BlockParams {
                    buffers: BufferStorage::Flops,
                    ..*params
                };
                sources.insert(
                    0,
                    (format!("{}_flops.v", kind.name()), kind.verilog(&flops)?),
                );
                flow_control(params, &module, Some(&kind.module_name(&flops)))
            } else {
                flow_control(params, &module, None)
            }
        }
        BlockKind::Crossbar => crossbar(params, &module),
        BlockKind::RoutingArbiter => arbiter(params, &module),
        BlockKind::VcController if !params.on_off => vc_controller(params, &module),
        BlockKind::HeaderSelector => header_selector(params, &module),
        BlockKind::AddressDecoder => address_decoder(params, &module),
        BlockKind::EconomicalStorageTable => es_table(params, &module)?,
        BlockKind::LookaheadMux => lookahead_mux(params, &module)?,
        _ => {
            let names: Vec<String> = PROVED.iter().map(|k| k.name().replace('_', "-")).collect();
            return Err(Error::InvalidSpec(format!(
                "no proof is written for the {} block{}; the blocks with proofs are: {} \
                 (the vc controller with credit flow control)",
                kind.name().replace('_', " "),
                if params.on_off {
                    " with on/off flow control"
                } else {
                    ""
                },
                names.join(", ")
            )));
        }
    };
    let top = format!("{module}_formal");
    let text = format!("module {top}{harness}endmodule\n");
    sources.push((format!("{}_formal.sv", kind.name()), text));
    Ok(Proof {
        name: module,
        top,
        sources,
        cex_depth: depth,
        bounded: false,
        properties,
        probes: Vec::new(),
        cuts: Vec::new(),
        cex_engine: "smtbmc z3",
    })
}

fn props(list: &[&str]) -> Vec<String> {
    list.iter().map(|s| s.to_string()).collect()
}

/// Flow-control unit (docs/blocks.md, `src/blocks/flow_control/`):
/// occupancy, order (tracked flit), overflow, credits or on/off level,
/// the send-side credit counter; with `flops` (a block-RAM unit), every
/// output equal to the flip-flop unit's in every cycle.
fn flow_control(
    p: &BlockParams,
    module: &str,
    flops: Option<&str>,
) -> (String, Vec<String>, usize) {
    let w = p.flit_width;
    let d = p.depth;
    let mut s = String::new();
    let _ = write!(
        s,
        "(input clock, input rst, input [{w1}:0] in_data, input in_valid, input in_head,
  input in_tail, input out_ready, input credit_in, input send_req, input track);
  localparam D = {d};
  wire [{w1}:0] out_data; wire out_valid, out_head, out_tail, credit_out, send_ok, overflow;
",
        w1 = w - 1
    );
    let ports = ".clock(clock), .rst(rst), .in_data(in_data), .in_valid(in_valid), \
                 .in_head(in_head), .in_tail(in_tail), .out_ready(out_ready), \
                 .credit_in(credit_in), .send_req(send_req)";
    let _ = writeln!(
        s,
        "  {module} dut({ports}, .out_data(out_data), .out_valid(out_valid), \
         .out_head(out_head), .out_tail(out_tail), .credit_out(credit_out), \
         .send_ok(send_ok), .overflow(overflow));"
    );
    s.push_str(init_block());
    let _ = write!(
        s,
        "  reg [{c}:0] occ = 0, cr = 0, ahead = 0;
  reg tracking = 1'b0, t_head = 1'b0, t_tail = 1'b0;
  reg [{w1}:0] t_data = 0;
  wire push = in_valid && occ != D;
  wire pop = out_valid && out_ready;
  wire send = send_req && send_ok;
",
        c = CB - 1,
        w1 = w - 1
    );
    if p.on_off {
        // The sender obeys the level in the cycle it is computed (slack 1,
        // as `routergen block` emits the unit).
        s.push_str("  always @(*) if (!init && !rst) assume(!in_valid || credit_out);\n");
    } else {
        // Downstream returns a credit only for a flit it holds.
        s.push_str("  always @(*) if (!init && !rst) assume(!credit_in || cr < D);\n");
    }
    s.push_str(
        "  always @(posedge clock) begin
    if (rst) begin
      occ <= 0; cr <= D; tracking <= 1'b0;
    end else begin
      occ <= occ + push - pop;
      cr <= cr - send + credit_in;
      if (tracking && pop) begin
        if (ahead == 0) tracking <= 1'b0; else ahead <= ahead - 1;
      end
      if (!tracking && push && track) begin
        tracking <= 1'b1; t_data <= in_data; t_head <= in_head; t_tail <= in_tail;
        ahead <= occ - pop;
      end
    end
  end
  always @(*) if (!init) begin
    assert(occ <= D);
    assert(out_valid == (occ != 0));
    if (!out_valid) assert(!out_head && !out_tail);
    if (!rst) assert(overflow == (in_valid && occ == D));
    if (tracking) begin
      assert(ahead < occ);
      if (ahead == 0) assert(out_data == t_data && out_head == t_head && out_tail == t_tail);
    end
",
    );
    if p.on_off {
        s.push_str(
            "    assert(credit_out == (occ <= D - 1));\n    assert(send_ok == credit_in);\n",
        );
    } else {
        s.push_str(
            "    if (!rst) assert(credit_out == pop);\n    assert(cr <= D);\n    assert(send_ok == (cr != 0));\n",
        );
    }
    s.push_str("  end\n");
    let mut list = props(&[
        "occupancy within 0..D; out_valid exactly when a flit is held",
        "a flit arriving while D are held is refused and flagged on overflow, and only then",
        "flits leave in the order they arrived, head and tail marks with them (tracked flit)",
    ]);
    if p.on_off {
        list.push(
            "on/off: the level is high exactly while a slot is free; send_ok follows credit_in"
                .into(),
        );
    } else {
        list.push("a credit pulse per flit that leaves, in the cycle it leaves".into());
        list.push("send-side credits within 0..D; send_ok exactly when one is left".into());
    }
    if let Some(flops) = flops {
        let _ = write!(
            s,
            "  wire [{w1}:0] f_data; wire f_valid, f_head, f_tail, f_credit, f_ok, f_overflow;
  {flops} flops({ports}, .out_data(f_data), .out_valid(f_valid), .out_head(f_head),
    .out_tail(f_tail), .credit_out(f_credit), .send_ok(f_ok), .overflow(f_overflow));
  always @(*) if (!init) begin
    assert(out_data == f_data && out_valid == f_valid && out_head == f_head);
    assert(out_tail == f_tail && credit_out == f_credit && send_ok == f_ok);
    assert(overflow == f_overflow);
  end
",
            w1 = w - 1
        );
        let ram = match p.buffers {
            BufferStorage::Lutram => "distributed RAM",
            _ => "block RAM",
        };
        list.push(format!(
            "{ram}: every output equals the flip-flop unit's, in every cycle"
        ));
    }
    (s, list, d + 4)
}

/// Lowest-index priority encoder over `n` bits of `vec` from `base`, as a
/// chain of conditionals (the documented rule for several grants).
fn lowest(vec: &str, base: usize, n: usize) -> String {
    let mut e = format!("{}", n.saturating_sub(1));
    for i in (0..n.saturating_sub(1)).rev() {
        e = format!("{vec}[{}] ? {i} : {e}", base + i);
    }
    e
}

/// Crossbar (docs/blocks.md): each output carries exactly its selected
/// input (held connection, else the lowest granted input), zero when none;
/// a connection is held from a non-tail flit through a fresh grant until a
/// tail flit passes, and `out_busy` says so.
fn crossbar(p: &BlockParams, module: &str) -> (String, Vec<String>, usize) {
    let n = p.ports;
    let w = p.flit_width;
    let mut s = String::new();
    let _ = writeln!(
        s,
        "(input clock, input rst, input [{g}:0] grant, input [{dw}:0] in_data,
  input [{n1}:0] in_valid, input [{n1}:0] in_head, input [{n1}:0] in_tail);
  wire [{dw}:0] out_data; wire [{n1}:0] out_valid, out_head, out_tail, out_busy;",
        g = n * n - 1,
        dw = n * w - 1,
        n1 = n - 1
    );
    let mut conn = String::from(".clock(clock), .rst(rst)");
    for k in 0..n * n {
        let _ = write!(conn, ", .grant_{k}(grant[{k}])");
    }
    for i in 0..n {
        let _ = write!(
            conn,
            ", .in_data_{i}(in_data[{}:{}]), .in_valid_{i}(in_valid[{i}]), .in_head_{i}(in_head[{i}]), \
             .in_tail_{i}(in_tail[{i}]), .out_data_{i}(out_data[{}:{}]), .out_valid_{i}(out_valid[{i}]), \
             .out_head_{i}(out_head[{i}]), .out_tail_{i}(out_tail[{i}]), .out_busy_{i}(out_busy[{i}])",
            i * w + w - 1,
            i * w,
            i * w + w - 1,
            i * w
        );
    }
    let _ = writeln!(s, "  {module} dut({conn});");
    s.push_str(init_block());
    for o in 0..n {
        let _ = write!(
            s,
            "  reg held{o} = 1'b0; reg [3:0] hi{o} = 0;
  wire fresh{o} = |grant[{hi}:{lo}];
  wire [3:0] gi{o} = {enc};
  wire sel{o} = held{o} || fresh{o};
  wire [3:0] si{o} = held{o} ? hi{o} : gi{o};
  wire [{w1}:0] sd{o} = in_data >> (si{o} * {w});
  always @(posedge clock)
    if (rst) held{o} <= 1'b0;
    else if (sel{o} && (((in_valid >> si{o}) & 1'b1) != 0)) begin
      if ((((in_tail >> si{o}) & 1'b1) != 0)) held{o} <= 1'b0;
      else if (!held{o}) begin held{o} <= 1'b1; hi{o} <= gi{o}; end
    end
  always @(*) if (!init) begin
    assert(!held{o} || hi{o} < {n});
    assert(out_busy[{o}] == held{o});
    if (sel{o}) begin
      assert(out_valid[{o}] == (((in_valid >> si{o}) & 1'b1) != 0) && out_head[{o}] == (((in_head >> si{o}) & 1'b1) != 0));
      assert(out_tail[{o}] == (((in_tail >> si{o}) & 1'b1) != 0) && out_data[{dh}:{dl}] == sd{o});
    end else
      assert(!out_valid[{o}] && !out_head[{o}] && !out_tail[{o}] && out_data[{dh}:{dl}] == 0);
  end
",
            hi = o * n + n - 1,
            lo = o * n,
            enc = lowest("grant", o * n, n),
            w1 = w - 1,
            dh = o * w + w - 1,
            dl = o * w,
        );
    }
    (
        s,
        props(&[
            "each output carries exactly its selected input's flit; all zero when none is selected",
            "a connection is held from a non-tail flit through a fresh grant until a tail flit passes; out_busy says so",
        ]),
        6,
    )
}

/// Routing arbiter (docs/blocks.md): grants only for requests to free
/// candidates, at most one per input and per output, `grant_out` the
/// same matching as `grant`, the heuristic's choice (STATIC-XY: the
/// earliest free candidate), and round-robin fairness: an input with a
/// free candidate is granted within P cycles.
fn arbiter(p: &BlockParams, module: &str) -> (String, Vec<String>, usize) {
    let n = p.ports;
    let f = p.freedom;
    let k = n * f;
    let mut s = String::new();
    let _ = writeln!(
        s,
        "(input clock, input rst, input [{n1}:0] req, input [{c}:0] cand, input [{k1}:0] cand_valid,
  input [{n1}:0] out_free, input [{s8}:0] out_credits, input [{s8}:0] out_mux);
  wire [{k1}:0] grant; wire [{g}:0] grant_out;",
        n1 = n - 1,
        c = 4 * k - 1,
        k1 = k - 1,
        s8 = 8 * n - 1,
        g = n * n - 1
    );
    let mut conn = String::from(".clock(clock), .rst(rst)");
    for i in 0..n {
        let _ = write!(
            conn,
            ", .req_{i}(req[{i}]), .out_free_{i}(out_free[{i}]), .out_credits_{i}(out_credits[{}:{}]), \
             .out_mux_{i}(out_mux[{}:{}])",
            8 * i + 7,
            8 * i,
            8 * i + 7,
            8 * i
        );
    }
    for j in 0..k {
        let _ = write!(
            conn,
            ", .cand_{j}(cand[{}:{}]), .cand_valid_{j}(cand_valid[{j}]), .grant_{j}(grant[{j}])",
            4 * j + 3,
            4 * j
        );
    }
    for m in 0..n * n {
        let _ = write!(conn, ", .grant_out_{m}(grant_out[{m}])");
    }
    let _ = writeln!(s, "  {module} dut({conn});");
    s.push_str(init_block());
    for j in 0..k {
        let _ = writeln!(
            s,
            "  wire [3:0] c{j} = cand[{}:{}];\n  wire ok{j} = cand_valid[{j}] && c{j} < {n} && ((out_free >> c{j}) & 1'b1);\n  \
             always @(*) if (!init) assume(!cand_valid[{j}] || c{j} < {n});",
            4 * j + 3,
            4 * j
        );
    }
    let mut checks = String::new();
    for i in 0..n {
        let _ = writeln!(
            checks,
            "    assert($onehot0(grant[{}:{}]));",
            i * f + f - 1,
            i * f
        );
        for j in 0..f {
            let kk = i * f + j;
            let _ = writeln!(checks, "    if (grant[{kk}]) assert(req[{i}] && ok{kk});");
            if p.selection == PathSelection::StaticXy && j > 0 {
                let earlier = join(j, " || ", |e| format!("ok{}", i * f + e));
                let _ = writeln!(checks, "    if (grant[{kk}]) assert(!({earlier}));");
            }
        }
    }
    for o in 0..n {
        let _ = writeln!(
            checks,
            "    assert($onehot0(grant_out[{}:{}]));",
            o * n + n - 1,
            o * n
        );
        for i in 0..n {
            let via = join(f, " || ", |j| {
                format!("(grant[{}] && c{} == {o})", i * f + j, i * f + j)
            });
            let _ = writeln!(checks, "    assert(grant_out[{}] == ({via}));", o * n + i);
        }
    }
    for i in 0..n {
        let any = join(f, " || ", |j| format!("ok{}", i * f + j));
        let granted = join(f, " || ", |j| format!("grant[{}]", i * f + j));
        let _ = write!(
            s,
            "  reg [4:0] wait{i} = 0;
  wire pickable{i} = req[{i}] && ({any});
  always @(posedge clock)
    if (rst || !pickable{i} || ({granted})) wait{i} <= 0; else wait{i} <= wait{i} + 1;
"
        );
        let _ = writeln!(checks, "    assert(wait{i} < {n});");
    }
    let _ = write!(s, "  always @(*) if (!init && !rst) begin\n{checks}  end\n");
    let mut list = props(&[
        "no grant without a request, and only to a valid candidate whose output is free",
        "at most one grant per input and per output; grant_out is the same matching as grant",
        "round robin: an input with a free candidate waits fewer than P cycles in a row",
    ]);
    if p.selection == PathSelection::StaticXy {
        list.push("STATIC-XY: the granted choice is the input's earliest free candidate".into());
    }
    (s, list, n + 4)
}

/// VC controller (docs/blocks.md, credit flow control): per-VC occupancy
/// and credit counters within 0..D, never a flit out without a credit or
/// from an empty VC, a credit pulse per flit that leaves, overflow only on
/// a full VC, a VC's flits leave in order (tracked flit), and round robin:
/// a VC with a flit and a credit waits at most V - 1 cycles.
fn vc_controller(p: &BlockParams, module: &str) -> (String, Vec<String>, usize) {
    let v = p.vcs;
    let w = p.flit_width;
    let d = p.depth;
    let mut s = String::new();
    let _ = writeln!(
        s,
        "(input clock, input rst, input [{dw}:0] in_data, input [{v1}:0] in_valid, input [{v1}:0] in_head,
  input [{v1}:0] in_tail, input [{v1}:0] credit_in, input track);
  localparam D = {d};
  wire [{v1}:0] credit_out, overflow; wire [{w1}:0] phys_data; wire phys_valid, phys_head, phys_tail;
  wire [3:0] phys_vc;",
        dw = v * w - 1,
        v1 = v - 1,
        w1 = w - 1
    );
    let mut conn = String::from(".clock(clock), .rst(rst)");
    for i in 0..v {
        let _ = write!(
            conn,
            ", .in_data_{i}(in_data[{}:{}]), .in_valid_{i}(in_valid[{i}]), .in_head_{i}(in_head[{i}]), \
             .in_tail_{i}(in_tail[{i}]), .credit_in_{i}(credit_in[{i}]), .credit_out_{i}(credit_out[{i}]), \
             .overflow_{i}(overflow[{i}])",
            i * w + w - 1,
            i * w
        );
    }
    conn.push_str(
        ", .phys_data(phys_data), .phys_valid(phys_valid), .phys_head(phys_head), \
         .phys_tail(phys_tail), .phys_vc(phys_vc)",
    );
    let _ = writeln!(s, "  {module} dut({conn});");
    s.push_str(init_block());
    let _ = write!(
        s,
        "  (* anyconst *) reg [3:0] tv;
  always @(*) assume(tv < {v});
  reg tracking = 1'b0, t_head = 1'b0, t_tail = 1'b0;
  reg [{w1}:0] t_data = 0; reg [{c}:0] ahead = 0;
  wire [{w1}:0] tv_data = in_data >> (tv * {w});
",
        w1 = w - 1,
        c = CB - 1
    );
    for i in 0..v {
        let _ = write!(
            s,
            "  reg [{c}:0] occ{i} = 0, cr{i} = 0, wait{i} = 0;
  wire push{i} = in_valid[{i}] && occ{i} != D;
  wire pop{i} = phys_valid && phys_vc == {i};
  always @(*) if (!init && !rst) assume(!credit_in[{i}] || cr{i} < D);
  always @(posedge clock)
    if (rst) begin occ{i} <= 0; cr{i} <= D; wait{i} <= 0; end
    else begin
      occ{i} <= occ{i} + push{i} - pop{i};
      cr{i} <= cr{i} - pop{i} + credit_in[{i}];
      wait{i} <= (occ{i} != 0 && cr{i} != 0 && !pop{i}) ? wait{i} + 1 : 0;
    end
  always @(*) if (!init) begin
    assert(occ{i} <= D && cr{i} <= D);
    if (pop{i}) assert(occ{i} != 0 && cr{i} != 0);
    assert(wait{i} < {v});
    if (!rst) assert(overflow[{i}] == (in_valid[{i}] && occ{i} == D));
    if (!rst) assert(credit_out[{i}] == pop{i});
  end
",
            c = CB - 1
        );
    }
    let occ_tv = format!("(occ >> (tv * {CB}))");
    let _ = write!(
        s,
        "  wire [{all}:0] occ = {{{occs}}};
  wire [{c}:0] occ_tv = {occ_tv};
  wire push_tv = in_valid[tv] && occ_tv != D;
  wire pop_tv = phys_valid && phys_vc == tv;
  always @(posedge clock)
    if (rst) tracking <= 1'b0;
    else begin
      if (tracking && pop_tv) begin
        if (ahead == 0) tracking <= 1'b0; else ahead <= ahead - 1;
      end
      if (!tracking && push_tv && track) begin
        tracking <= 1'b1; t_data <= tv_data; t_head <= in_head[tv]; t_tail <= in_tail[tv];
        ahead <= occ_tv - pop_tv;
      end
    end
  always @(*) if (!init) begin
    assert(!phys_valid || phys_vc < {v});
    if (tracking) assert(ahead < occ_tv);
    if (tracking && pop_tv && ahead == 0)
      assert(phys_data == t_data && phys_head == t_head && phys_tail == t_tail);
  end
",
        all = v * CB - 1,
        occs = join(v, ", ", |i| format!("occ{}", v - 1 - i)),
        c = CB - 1,
    );
    (
        s,
        props(&[
            "per-VC occupancy and credit counters within 0..D",
            "never a flit out without a downstream credit, nor from an empty VC",
            "a credit pulse per flit that leaves; overflow exactly on a flit arriving at a full VC",
            "a VC's flits leave in the order they arrived (tracked flit), so packets never interleave within a VC",
            "round robin: a VC with a flit and a credit waits at most V - 1 cycles",
        ]),
        d + v + 4,
    )
}

/// Header selector (docs/blocks.md): with at most one `sel` high, the
/// output is the selected header and `out_valid` says whether one is.
fn header_selector(p: &BlockParams, module: &str) -> (String, Vec<String>, usize) {
    let f = p.freedom;
    let w = p.flit_width;
    let mut s = String::new();
    let _ = writeln!(
        s,
        "(input clock, input [{hw}:0] hdr, input [{f1}:0] sel);
  wire [{w1}:0] out_hdr; wire out_valid;",
        hw = f * w - 1,
        f1 = f - 1,
        w1 = w - 1
    );
    let mut conn = String::from(".out_hdr(out_hdr), .out_valid(out_valid)");
    for j in 0..f {
        let _ = write!(
            conn,
            ", .hdr_{j}(hdr[{}:{}]), .sel_{j}(sel[{j}])",
            j * w + w - 1,
            j * w
        );
    }
    let _ = writeln!(s, "  {module} dut({conn});");
    let _ = writeln!(
        s,
        "  always @(*) begin\n    assume($onehot0(sel));\n    assert(out_valid == |sel);"
    );
    for j in 0..f {
        let _ = writeln!(
            s,
            "    if (sel[{j}]) assert(out_hdr == hdr[{}:{}]);",
            j * w + w - 1,
            j * w
        );
    }
    s.push_str("  end\n");
    (
        s,
        props(&["the output is the header of the one selected candidate; out_valid exactly when one is selected"]),
        2,
    )
}

/// The outputs dimension-order routing permits for the offset signs `s`
/// (s_d: 0 zero, 1 positive, 2 negative): the lowest dimension with a
/// non-zero offset, in its direction (port 2d+1 for +, 2d+2 for -), or
/// the local port 0 at the destination (the survey §3, deterministic
/// routing; docs/blocks.md for the port numbers).
pub fn dimension_order_ports(signs: &[u8]) -> Vec<usize> {
    match signs.iter().position(|&s| s != 0) {
        None => vec![0],
        Some(d) => vec![2 * d + signs[d] as usize],
    }
}

/// Address decoder (docs/blocks.md), dimension-order table as
/// `routergen block` emits it: for every head flit, the candidate outputs
/// equal the relation's, computed here from the offsets' signs
/// ([`dimension_order_ports`]) for every one of the 3^n sign vectors.
fn address_decoder(p: &BlockParams, module: &str) -> (String, Vec<String>, usize) {
    let n = p.dims;
    let w = p.flit_width;
    let ports = 2 * n + 1;
    let mut s = String::new();
    let _ = writeln!(
        s,
        "(input clock, input [{w1}:0] node_id, input [{w1}:0] in_data, input in_valid, input in_head);
  wire [{p1}:0] cand;",
        w1 = w - 1,
        p1 = ports - 1
    );
    let mut conn = String::from(
        ".node_id(node_id), .in_data(in_data), .in_valid(in_valid), .in_head(in_head)",
    );
    for o in 0..ports {
        let _ = write!(conn, ", .cand_{o}(cand[{o}])");
    }
    let _ = writeln!(s, "  {module} dut({conn});");
    for d in 0..n {
        let f = format!("in_data[{}:{}]", 4 * d + 3, 4 * d);
        let sign = match p.addressing {
            // A signed 4-bit offset: bit 3 is its sign.
            Addressing::Relative => {
                format!("({f} == 0) ? 2'd0 : in_data[{}] ? 2'd2 : 2'd1", 4 * d + 3)
            }
            // A coordinate compared with this node's.
            Addressing::Absolute => {
                let me = format!("node_id[{}:{}]", 4 * d + 3, 4 * d);
                format!("({f} == {me}) ? 2'd0 : ({f} > {me}) ? 2'd1 : 2'd2")
            }
        };
        let _ = writeln!(s, "  wire [1:0] s{d} = {sign};");
    }
    s.push_str("  reg [PORTS-1:0] want;\n  always @(*) begin\n    want = 0;\n    case ({");
    let sel = join(n, ", ", |d| format!("s{}", n - 1 - d));
    s.push_str(&sel);
    s.push_str("})\n");
    for idx in 0..3usize.pow(n as u32) {
        let signs: Vec<u8> = (0..n)
            .map(|d| (idx / 3usize.pow(d as u32) % 3) as u8)
            .collect();
        let key = join(n, ", ", |d| format!("2'd{}", signs[n - 1 - d]));
        let mask: usize = dimension_order_ports(&signs).iter().map(|o| 1 << o).sum();
        let _ = writeln!(s, "      {{{key}}}: want = {ports}'d{mask};");
    }
    s.push_str("      default: want = 0;\n    endcase\n  end\n");
    s = s.replace("PORTS", &ports.to_string());
    s.push_str("  always @(*) if (in_valid && in_head) assert(cand == want);\n");
    (
        s,
        props(&["for every head flit, the candidate outputs are dimension-order routing's (the table built from the offset signs)"]),
        2,
    )
}

/// Mesh radix of the networks the table proofs take their relation from:
/// 3 is the smallest where the middle router sees all 3^n sign vectors.
const TABLE_RADIX: u32 = 3;

/// Dimension-order routing on an n-dimensional radix-3 mesh
/// ([`TABLE_RADIX`]), the relation `routergen block` compiles into the
/// tables (src/algo, the survey §3).
fn mesh_relation(n: usize) -> Result<crate::algo::Relation> {
    let net = crate::algo::Network::new(crate::spec::Topology::Mesh, n as u32, TABLE_RADIX)?;
    crate::algo::Relation::new(crate::spec::Algorithm::DimensionOrder, net, 1)
}

/// The output mask (bit o: port o) of a set of hops.
fn hop_mask(net: &crate::algo::Network, hops: &[crate::algo::Hop]) -> usize {
    hops.iter().map(|h| 1 << net.port_index(h.port)).sum()
}

/// Economical-storage table (docs/blocks.md; LAPSES §5.2.1): the entry a
/// head flit selects, for a tracked entry chosen by the solver
/// (`anyconst`), is the routing relation's entry for that sign vector
/// after reset and the last written value after a configuration write; the
/// node-id register follows `cfg_node_we`; nothing is selected without a
/// head flit. The reset entries come from
/// [`crate::algo::tables::economical`] at the middle router of a radix-3
/// mesh, not from the block.
fn es_table(p: &BlockParams, module: &str) -> Result<(String, Vec<String>, usize)> {
    let n = p.dims;
    let w = p.flit_width;
    let ports = 2 * n + 1;
    let rel = mesh_relation(n)?;
    let net = rel.net;
    let middle = net.node_at(&vec![1; n]);
    let table = crate::algo::tables::economical(&rel, middle);
    if !table.well_defined() {
        return Err(Error::Internal(format!(
            "dimension order's economical-storage table is not well defined: {:?}",
            table.conflicts
        )));
    }
    let entries = table.entries.len();
    let mut s = String::new();
    let _ = writeln!(
        s,
        "(input clock, input rst, input cfg_node_we, input [{w1}:0] cfg_node, input cfg_we,
  input [6:0] cfg_addr, input [{p1}:0] cfg_mask, input [1:0] cfg_class,
  input [{w1}:0] in_data, input in_valid, input in_head);
  wire [{p1}:0] cand; wire [1:0] vc_class;",
        w1 = w - 1,
        p1 = ports - 1
    );
    let mut conn = String::from(
        ".clock(clock), .rst(rst), .cfg_node_we(cfg_node_we), .cfg_node(cfg_node), \
         .cfg_we(cfg_we), .cfg_addr(cfg_addr), .cfg_class(cfg_class), .in_data(in_data), \
         .in_valid(in_valid), .in_head(in_head), .vc_class(vc_class)",
    );
    for o in 0..ports {
        let _ = write!(conn, ", .cfg_mask_{o}(cfg_mask[{o}]), .cand_{o}(cand[{o}])");
    }
    let _ = writeln!(s, "  {module} dut({conn});");
    s.push_str(init_block());
    // The relation's entry for each sign vector: digit 0 for sign 0, 1
    // for +, 2 for - (docs/blocks.md), keyed here by the digits themselves.
    let _ = writeln!(
        s,
        "  (* anyconst *) reg [6:0] ta;\n  always @(*) assume(ta < {entries});\n  \
         reg [{p1}:0] rel_mask; reg [1:0] rel_class;\n  always @(*) begin\n    \
         rel_mask = 0; rel_class = 0;\n    case (ta)",
        p1 = ports - 1
    );
    for (e, entry) in table.entries.iter().enumerate() {
        let hops = entry.as_ref().ok_or_else(|| {
            Error::Internal(format!(
                "no destination has sign vector {e} in a radix-3 mesh"
            ))
        })?;
        let digits: usize = crate::algo::tables::signs_of(e, n)
            .iter()
            .enumerate()
            .map(|(d, &sg)| {
                let digit = match sg {
                    0 => 0,
                    1 => 1,
                    _ => 2,
                };
                digit * 3usize.pow(d as u32)
            })
            .sum();
        let class = hops.iter().map(|h| h.vc).min().unwrap_or(0);
        let _ = writeln!(
            s,
            "      7'd{digits}: begin rel_mask = {ports}'d{}; rel_class = 2'd{class}; end",
            hop_mask(&net, hops)
        );
    }
    s.push_str("      default: begin rel_mask = 0; rel_class = 0; end\n    endcase\n  end\n");
    let _ = write!(
        s,
        "  reg [{w1}:0] node = 0; reg [{p1}:0] t_mask = 0; reg [1:0] t_class = 0;
  always @(posedge clock)
    if (rst) begin node <= 0; t_mask <= rel_mask; t_class <= rel_class; end
    else begin
      if (cfg_node_we) node <= cfg_node;
      if (cfg_we && cfg_addr == ta) begin t_mask <= cfg_mask; t_class <= cfg_class; end
    end
",
        w1 = w - 1,
        p1 = ports - 1
    );
    // LAPSES §5.2.1: the sign of (destination - node id) per dimension.
    for d in 0..n {
        let f = format!("in_data[{}:{}]", 4 * d + 3, 4 * d);
        let me = format!("node[{}:{}]", 4 * d + 3, 4 * d);
        let _ = writeln!(
            s,
            "  wire [6:0] dg{d} = ({f} == {me}) ? 7'd0 : ({f} > {me}) ? 7'd1 : 7'd2;"
        );
    }
    let idx = join(n, " + ", |d| format!("dg{d} * 7'd{}", 3usize.pow(d as u32)));
    let _ = write!(
        s,
        "  wire [6:0] idx = {idx};
  always @(*) if (!init) begin
    if (!(in_valid && in_head)) assert(cand == 0 && vc_class == 0);
    else if (idx == ta) assert(cand == t_mask && vc_class == t_class);
  end
"
    );
    Ok((
        s,
        props(&[
            "after reset, a head flit's outputs and VC class are the routing relation's economical-storage entry for the sign vector of (destination - node id) (dimension order, from src/algo)",
            "after a configuration write, the written entry; the node id follows cfg_node_we",
            "all zero without a head flit",
        ]),
        4,
    ))
}

/// Look-ahead mux (docs/blocks.md; LAPSES §3.2, Figure 4b) fed by the
/// concurrent next-hop lookup: with each candidate j a link of this
/// router toward a neighbour and `next_mask` the routing relation's
/// outputs at that neighbour for the header's destination (the table
/// lookup, generated here from [`crate::algo`]), the new header's
/// look-ahead field is the selected (lowest) candidate's table entry,
/// cleared when none is selected, and the other W - P bits pass unchanged.
/// P = 2n + 1 (an n-dimensional mesh router); the destination's
/// coordinates are the 4-bit fields above the look-ahead field.
fn lookahead_mux(p: &BlockParams, module: &str) -> Result<(String, Vec<String>, usize)> {
    let ports = p.ports;
    let f = p.freedom;
    let w = p.flit_width;
    let n = (ports.saturating_sub(1)) / 2;
    if ports < 3 || ports % 2 == 0 || ports + 4 * n > w {
        return Err(Error::InvalidSpec(format!(
            "the look-ahead mux proof needs a mesh router's port count P = 2n + 1 (3, 5, 7, 9) \
             with the destination's 4-bit coordinates above the P-bit field in the flit \
             (P + 4n <= W); got P = {ports}, W = {w}"
        )));
    }
    let rel = mesh_relation(n)?;
    let net = rel.net;
    let k = TABLE_RADIX as usize;
    let nodes = net.nodes();
    let mut s = String::new();
    let _ = writeln!(
        s,
        "(input clock, input [{w1}:0] in_hdr, input [{f1}:0] sel, input [{cb}:0] node,
  input [{pf}:0] cport, input [{m1}:0] next_mask);
  wire [{w1}:0] out_hdr; wire out_valid;",
        w1 = w - 1,
        f1 = f - 1,
        cb = 4 * n - 1,
        pf = 4 * f - 1,
        m1 = f * ports - 1
    );
    let mut conn = String::from(".in_hdr(in_hdr), .out_hdr(out_hdr), .out_valid(out_valid)");
    for j in 0..f {
        let _ = write!(conn, ", .sel_{j}(sel[{j}])");
    }
    for m in 0..f * ports {
        let _ = write!(conn, ", .next_mask_{m}(next_mask[{m}])");
    }
    let _ = writeln!(s, "  {module} dut({conn});");
    // The relation's outputs at router `at` for destination `to`, both as
    // n 4-bit coordinates (dimension 0 lowest): the table the concurrent
    // lookup holds.
    let _ = writeln!(
        s,
        "  function [{p1}:0] rel(input [{cb}:0] at, input [{cb}:0] to);\n    begin\n      rel = 0;\n      case ({{to, at}})",
        p1 = ports - 1,
        cb = 4 * n - 1
    );
    let key = |node: u32| -> u64 {
        (0..n).fold(0, |acc, d| acc | u64::from(net.coord(node, d)) << (4 * d))
    };
    for at in 0..nodes {
        for to in 0..nodes {
            let hops = rel.hops(at, crate::algo::Input::INJECTED, to);
            let _ = writeln!(
                s,
                "        {}'h{:x}: rel = {ports}'d{};",
                8 * n,
                key(to) << (4 * n) | key(at),
                hop_mask(&net, &hops)
            );
        }
    }
    s.push_str("        default: rel = 0;\n      endcase\n    end\n  endfunction\n");
    let _ = writeln!(
        s,
        "  wire [{}:0] dest = in_hdr[{}:{ports}];",
        4 * n - 1,
        ports + 4 * n - 1
    );
    for d in 0..n {
        let _ = writeln!(
            s,
            "  always @(*) assume(node[{}:{}] < {k} && dest[{}:{}] < {k});",
            4 * d + 3,
            4 * d,
            4 * d + 3,
            4 * d
        );
    }
    for j in 0..f {
        // Candidate j leaves by port cport_j (2d + 1 for +d, 2d + 2 for
        // -d) to the neighbour one step along d.
        let _ = writeln!(
            s,
            "  wire [3:0] cp{j} = cport[{}:{}];\n  reg [{cb}:0] nb{j};\n  reg ok{j};",
            4 * j + 3,
            4 * j,
            cb = 4 * n - 1
        );
        let mut case =
            format!("  always @(*) begin\n    nb{j} = node; ok{j} = 1'b0;\n    case (cp{j})\n");
        for d in 0..n {
            let c = format!("node[{}:{}]", 4 * d + 3, 4 * d);
            let _ = writeln!(
                case,
                "      4'd{}: begin nb{j}[{}:{}] = {c} + 4'd1; ok{j} = {c} < {}; end",
                2 * d + 1,
                4 * d + 3,
                4 * d,
                k - 1
            );
            let _ = writeln!(
                case,
                "      4'd{}: begin nb{j}[{}:{}] = {c} - 4'd1; ok{j} = {c} != 0; end",
                2 * d + 2,
                4 * d + 3,
                4 * d
            );
        }
        case.push_str("      default: ;\n    endcase\n  end\n");
        s.push_str(&case);
        let _ = writeln!(
            s,
            "  wire [{p1}:0] want{j} = rel(nb{j}, dest);\n  always @(*) begin\n    assume(ok{j});\n    \
             assume(next_mask[{}:{}] == want{j});\n  end",
            j * ports + ports - 1,
            j * ports,
            p1 = ports - 1
        );
    }
    let mut pick = format!("{ports}'d0");
    for j in (0..f).rev() {
        pick = format!("sel[{j}] ? want{j} : {pick}");
    }
    let _ = write!(
        s,
        "  always @(*) begin
    assert(out_valid == |sel);
    assert(out_hdr[{p1}:0] == ({pick}));
    assert(out_hdr[{w1}:{ports}] == in_hdr[{w1}:{ports}]);
  end
",
        p1 = ports - 1,
        w1 = w - 1
    );
    Ok((
        s,
        props(&[
            "the new header's look-ahead field is the routing relation's outputs at the next router along the selected (lowest) candidate, for the header's destination (dimension order, from src/algo); cleared when none is selected",
            "the other W - P header bits pass unchanged; out_valid exactly when a candidate is selected",
        ]),
        2,
    ))
}
