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

use std::collections::BTreeMap;
use std::fmt::Write as _;

use rayon::prelude::*;

use super::text::{init_block, join};
use super::Proof;
use crate::error::Result;
use crate::spec::{Addressing, FlowControl, RouterSpec, Topology};

/// Bounded depth of the router proof, in frames from reset: `bmc3`
/// checks frames 0-5 of a 5-port 2-VC router in about 10 s, its frame 6
/// did not finish in minutes (docs/prove.md); frame 5 is the first where
/// a flit dropped by an input buffer shows.
pub const DEPTH: usize = 6;

/// The router proof of `spec` (credit flow control): credit safety on
/// every output VC, credits returned at most once per flit received, no
/// flit created, packets contiguous on each output VC, order and
/// conservation per input VC ([`sequence_checks`]) and routing
/// ([`routing_table`]).
pub fn proof(spec: &RouterSpec) -> Result<Proof> {
    if spec.flow_control != FlowControl::Credit {
        return Err(crate::error::Error::InvalidSpec(
            "the router proof is written for credit flow control; \
             flow_control = on-off has no router proof yet"
                .into(),
        ));
    }
    let rtl = crate::router::verilog(spec)?;
    let name = spec.name();
    let ports = spec.physical_ports() as usize;
    let v = spec.vcs as usize;
    let d = spec.buffer_depth as usize;
    let top = format!("{name}_formal");
    let mut s = harness_head(spec, &top)?;
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
    let mut properties = vec![
        "credit safety: never a flit out on a VC without a downstream credit".to_string(),
        "input credits: never more returned than flits received (at most once per flit)".into(),
        "no flit created: flits out never exceed flits in".into(),
        "packets contiguous on each output VC: a head only after a tail, nothing else between"
            .into(),
        "output VC numbers below V".into(),
    ];
    if let Some(text) = sequence_checks(spec) {
        s.push_str(&text);
        properties.push(
            "per input VC: flits out never exceed flits in; a packet's flits leave in order and \
             contiguously on their output VC, none lost, duplicated or changed (payload tags: \
             source input VC and sequence number)"
                .into(),
        );
    }
    if let Some(table) = routing_table(spec)? {
        s.push_str(&routing_checks(spec, &table));
        properties.push(
            "routing: every head leaves on a port and VC the routing relation permits for its \
             destination (table from src/algo, the offsets read back through the header update)"
                .into(),
        );
    }
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
        properties,
        probes: Vec::new(),
        cuts: Vec::new(),
        cex_engine: "smtbmc z3",
    })
}

/// The router's credit proof (credit flow control, the unified datapath
/// with flip-flop buffers; `None` for others), unbounded with ABC's PDR.
/// Beside the ports it reads two kinds of internal register
/// ([`Proof::probes`]): each input VC's buffer occupancy (the count of its
/// flow-control unit, `fcu_i`) and each output VC's credit counter
/// (`output_unit.count`), so that it can state, per input VC, credits returned
/// exactly once per flit: the sender's credits plus the flits in the
/// buffer are D in every cycle (a flit lost or a credit returned twice or
/// never breaks it); per output VC, the router's credit counter equals
/// the downstream model's credits (D less the flits sent plus the credits
/// returned), and never a flit out without one. The environment is the
/// bounded check's ([`proof`]) without payload tags or routing fields.
pub fn credit_proof(spec: &RouterSpec) -> Result<Option<Proof>> {
    let name = spec.name();
    let top = format!("{name}_credits_formal");
    let Some(h) = credit_harness(spec, &top)? else {
        return Ok(None);
    };
    Ok(Some(h.proof(
        &name,
        "credits",
        &top,
        credit_properties(),
        DEPTH,
        Vec::new(),
    )))
}

/// A harness on the router's ports and some internal registers.
pub(crate) struct Harness {
    /// The router's Verilog.
    pub rtl: String,
    /// The harness module, without its `endmodule`.
    pub text: String,
    /// (harness wire, register in the flattened design), [`Proof::probes`].
    pub probes: Vec<(String, String)>,
}

impl Harness {
    /// The unbounded job `NAME_job` (PDR; `abc bmc3` to `cex_depth` for a
    /// trace) of router `name`: the RTL and this harness, closed with its
    /// `endmodule`, module `top`.
    pub(crate) fn proof(
        mut self,
        name: &str,
        job: &str,
        top: &str,
        properties: Vec<String>,
        cex_depth: usize,
        cuts: Vec<String>,
    ) -> Proof {
        self.text.push_str("endmodule\n");
        Proof {
            name: format!("{name}_{job}"),
            top: top.to_string(),
            sources: vec![
                (format!("{name}.v"), self.rtl),
                (format!("{top}.sv"), self.text),
            ],
            cex_depth,
            bounded: false,
            properties,
            probes: self.probes,
            cuts,
            cex_engine: "abc bmc3",
        }
    }
}

/// The three properties of [`credit_harness`], for reports.
pub(crate) fn credit_properties() -> Vec<String> {
    vec![
        "credit safety: never a flit out on a VC without a downstream credit".into(),
        "input credits returned exactly once per flit: per input VC the sender's credits \
         plus the buffer's occupancy equal D in every cycle"
            .into(),
        "per output VC the router's credit counter equals the downstream model's credits".into(),
    ]
}

/// The credit proof's harness, module `top`; `None` when the router lacks the registers it reads (not
/// credit flow control, not the unified datapath with flip-flop buffers).
/// Per VC it keeps the sender's credits `sc{i}` (input VC i = p V + v)
/// and the downstream model's credits `cr{i}` (output VC i), which the
/// proofs built on it ([`super::liveness`], [`super::order`]) read.
pub(crate) fn credit_harness(spec: &RouterSpec, top: &str) -> Result<Option<Harness>> {
    if spec.flow_control != FlowControl::Credit {
        return Ok(None);
    }
    let rtl = crate::router::verilog(spec)?;
    let name = spec.name();
    let ports = spec.physical_ports() as usize;
    let v = spec.vcs as usize;
    let core = format!("{name}_core");
    let output_unit = format!("{core}_output_unit");
    let (Some(cb), Some((kb, _))) = (
        register_bits(&rtl, &format!("{core}_flow_control_unit_queue"), "count"),
        register_element(&rtl, &output_unit, "count", 0, ports * v),
    ) else {
        return Ok(None);
    };
    let d = spec.buffer_depth as usize;
    let c = bits_for(d + 1) + 1;
    let mut s = harness_head(spec, top)?;
    let mut probes = Vec::new();
    for p in 0..ports {
        for vc in 0..v {
            let i = p * v + vc;
            let _ = write!(
                s,
                "  reg [{c1}:0] sc{i} = 0, cr{i} = 0; reg inpkt{i} = 1'b0;
  wire rx{i} = p{p}_in_valid && p{p}_in_vc == {vc};
  wire tx{i} = p{p}_out_valid && p{p}_out_vc == {vc};
  (* keep *) wire [{cb1}:0] occ{i}; (* keep *) wire [{kb1}:0] ocr{i};
  always @(*) if (!init && !rst) begin
    if (rx{i}) assume(sc{i} != 0 && p{p}_in_head == !inpkt{i});
    if (p{p}_out_credit[{vc}]) assume(cr{i} < {d});
  end
  always @(posedge clk)
    if (rst) begin sc{i} <= {d}; cr{i} <= {d}; inpkt{i} <= 1'b0; end
    else begin
      sc{i} <= sc{i} - rx{i} + p{p}_in_credit[{vc}];
      cr{i} <= cr{i} - tx{i} + p{p}_out_credit[{vc}];
      if (rx{i}) inpkt{i} <= !p{p}_in_tail;
    end
  always @(*) if (!init && !rst) begin
    if (tx{i}) assert(cr{i} != 0);
    assert(sc{i} + occ{i} == {d});
    assert(ocr{i} == cr{i});
  end
",
                c1 = c - 1,
                cb1 = cb - 1,
                kb1 = kb - 1,
            );
            let credits = register_element(&rtl, &output_unit, "count", i, ports * v)
                .map_or_else(String::new, |(_, select)| select);
            probes.push((
                format!("occ{i}"),
                format!(
                    "dut.core.{}.count",
                    crate::router::buffer_queue_instance(i, v)
                ),
            ));
            probes.push((format!("ocr{i}"), format!("dut.core.output_unit.{credits}")));
        }
        let _ = writeln!(
            s,
            "  always @(*) if (!init && !rst && p{p}_in_valid) assume(p{p}_in_vc < {v});"
        );
    }
    Ok(Some(Harness {
        rtl,
        text: s,
        probes,
    }))
}

/// Width of the register `reg` of module `module` in the generated Verilog
/// (declared `reg [w-1:0] reg;` and updated `reg <= ...` at the clock; a
/// module of another body of the same block, `module_2`, counts as
/// `module`), or `None` when the router has no such register.
pub(crate) fn register_bits(rtl: &str, module: &str, reg: &str) -> Option<usize> {
    rtl.split("\nmodule ").find_map(|m| {
        let (name, body) = m.split_once(' ')?;
        let same = name == module
            || name
                .strip_prefix(module)
                .and_then(|r| r.strip_prefix('_'))
                .is_some_and(|n| n.bytes().all(|b| b.is_ascii_digit()));
        if !same {
            return None;
        }
        let body = &body[..body.find("\nendmodule").unwrap_or(body.len())];
        if !body.contains(&format!(" {reg} <= ")) {
            return None;
        }
        let decl = body.lines().find(|l| {
            let code = l.split("//").next().unwrap_or(l);
            let w: Vec<&str> = code.split_whitespace().collect();
            w.first() == Some(&"reg") && w.last() == Some(&format!("{reg};").as_str())
        })?;
        match decl.split_once('[') {
            Some((_, rest)) => Some(rest.split(':').next()?.trim().parse::<usize>().ok()? + 1),
            None => Some(1),
        }
    })
}

/// Element `i` of the register vector `reg` of `n` elements in `module`:
/// its width and its bits (`reg[9:5]`, or `reg[3]` for one bit); `None`
/// when the router has no such register.
pub(crate) fn register_element(
    rtl: &str,
    module: &str,
    reg: &str,
    i: usize,
    n: usize,
) -> Option<(usize, String)> {
    let total = register_bits(rtl, module, reg)?;
    if n == 0 || total % n != 0 || i >= n {
        return None;
    }
    let w = total / n;
    let select = if w == 1 {
        format!("{reg}[{i}]")
    } else {
        format!("{reg}[{}:{}]", i * w + w - 1, i * w)
    };
    Some((w, select))
}

/// The harness's module header (the router's ports as inputs, its
/// outputs as wires), the router instance `dut` and the `init` prologue.
pub(crate) fn harness_head(spec: &RouterSpec, top: &str) -> Result<String> {
    let name = spec.name();
    let node_bits = crate::router::node_id_bits(spec)?;
    let ports = spec.physical_ports() as usize;
    let v = spec.vcs as usize;
    let w = spec.flit_width as usize;
    let vb = crate::router::vc_bits(spec.vcs) as usize;
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
    Ok(s)
}

/// Per output port, the routing fields a head may carry as it leaves by
/// that port (keys) and the output VCs the routing relation permits it
/// there (bit v), on a mesh with relative addressing (docs/interface.md,
/// "Head flit": the field holds the offset that remains, and a router
/// moves the field of the dimension it sends along one step toward zero).
/// Built from [`crate::algo::Relation`] at every node for every
/// destination and every input a head can arrive by (their union: the
/// harness sees the outputs only); `None` for other networks.
pub fn routing_table(spec: &RouterSpec) -> Result<Option<Vec<BTreeMap<u64, u64>>>> {
    routing_table_dense_up_to(spec, 1 << 20)
}

/// [`routing_table`], built in a dense array per port where the keys are
/// at most `dense` (the test compares both ways).
fn routing_table_dense_up_to(
    spec: &RouterSpec,
    dense: usize,
) -> Result<Option<Vec<BTreeMap<u64, u64>>>> {
    use crate::algo::{Dir, Port};
    if spec.topology != Topology::Mesh || spec.addressing != Addressing::Relative || spec.lookahead
    {
        return Ok(None);
    }
    let net = crate::algo::Network::new(spec.topology, spec.dims, spec.radix)?;
    let rel = crate::algo::Relation::new(spec.algorithm, net, spec.vcs)?;
    let net = &rel.net;
    let f = field_bits(spec);
    let field_mask = (1u64 << f) - 1;
    let ports = net.port_count();
    // Keys are dense where they are few (every mesh up to the node limit
    // but the many-dimensional ones): one slot per port and key.
    let keys = 1usize
        .checked_shl(f * net.n() as u32)
        .filter(|&k| k <= dense);
    // Nodes in parallel chunks, each table merged by union.
    let tables: Vec<PortTables> = (0..net.nodes())
        .into_par_iter()
        .fold(
            || PortTables::new(ports, keys),
            |mut table, node| {
                let mut hops = Vec::new();
                let ins = crate::interface::deciding_inputs(&rel, node);
                let here = net.coords(node);
                for dest in 0..net.nodes() {
                    // The offset that remains before the hop, per
                    // dimension.
                    let left: Vec<i64> = (0..net.n())
                        .map(|d| i64::from(net.coord(dest, d)) - i64::from(here[d]))
                        .collect();
                    for &input in &ins {
                        hops.clear();
                        rel.route(node, input, dest, &mut hops);
                        for h in &hops {
                            // The offset that remains after this hop, per
                            // dimension, in the field's two's complement.
                            let key = left.iter().enumerate().fold(0u64, |acc, (d, &l)| {
                                let mut l = l;
                                if let Port::Link { dim, dir } = h.port {
                                    if dim as usize == d {
                                        l += if dir == Dir::Plus { -1 } else { 1 };
                                    }
                                }
                                acc | ((l as u64) & field_mask) << (d as u32 * f)
                            });
                            table.permit(net.port_index(h.port), key, h.vc);
                        }
                    }
                }
                table
            },
        )
        .collect();
    let mut table = vec![BTreeMap::new(); ports];
    for part in tables {
        part.union_into(&mut table);
    }
    Ok(Some(table))
}

/// [`routing_table`] while it is built: per output port, the VCs (bit v)
/// each key is permitted, in a dense array where keys are few.
enum PortTables {
    Dense { keys: usize, vcs: Vec<u64> },
    Sparse(Vec<BTreeMap<u64, u64>>),
}

impl PortTables {
    fn new(ports: usize, keys: Option<usize>) -> Self {
        match keys {
            Some(keys) => PortTables::Dense {
                keys,
                vcs: vec![0; ports * keys],
            },
            None => PortTables::Sparse(vec![BTreeMap::new(); ports]),
        }
    }

    fn permit(&mut self, port: usize, key: u64, vc: u8) {
        match self {
            PortTables::Dense { keys, vcs } => vcs[port * *keys + key as usize] |= 1 << vc,
            PortTables::Sparse(t) => *t[port].entry(key).or_insert(0) |= 1 << vc,
        }
    }

    /// OR-s this table into `table`.
    fn union_into(self, table: &mut [BTreeMap<u64, u64>]) {
        match self {
            PortTables::Dense { keys, vcs } => {
                for (i, &v) in vcs.iter().enumerate().filter(|(_, &v)| v != 0) {
                    *table[i / keys].entry((i % keys) as u64).or_insert(0) |= v;
                }
            }
            PortTables::Sparse(t) => {
                for (port, rows) in t.into_iter().enumerate() {
                    for (key, v) in rows {
                        *table[port].entry(key).or_insert(0) |= v;
                    }
                }
            }
        }
    }
}

/// Bits to number `n` things.
pub(crate) fn bits_for(n: usize) -> usize {
    (usize::BITS - n.saturating_sub(1).leading_zeros()).max(1) as usize
}

/// The harness text of the order and conservation properties, or `None`
/// when the flit has too few payload bits. The payload is cut down to
/// tags (the model may constrain payload, docs/prove.md): above the
/// routing field every flit carries its source, input port p and VC v as
/// p V + v, and its sequence number on that input VC; a non-head flit's
/// routing-field bits are zero. On each output VC a non-head flit must
/// carry its packet head's source and the next sequence number, with zero
/// routing-field bits (in order, contiguous, none lost, duplicated or
/// changed); per source, flits out never exceed flits in.
fn sequence_checks(spec: &RouterSpec) -> Option<String> {
    let ports = spec.physical_ports() as usize;
    let v = spec.vcs as usize;
    let w = spec.flit_width as usize;
    let h = spec.header_bits() as usize;
    let sb = bits_for(ports * v);
    let qb = w.checked_sub(h + sb)?;
    if qb < 2 {
        return None;
    }
    let (s_hi, s_lo, q_hi, q_lo) = (w - 1, w - sb, w - sb - 1, h);
    let mut s = String::new();
    let zero_field = |sig: &str| {
        if h == 0 {
            "1'b1".to_string()
        } else {
            format!("{sig}[{}:0] == 0", h - 1)
        }
    };
    for p in 0..ports {
        for vc in 0..v {
            let src = p * v + vc;
            let _ = write!(
                s,
                "  reg [{q1}:0] qin{p}_{vc} = 0; reg [15:0] nin{src} = 0;
  always @(*) if (!init && !rst && rx{p}_{vc})
    assume(p{p}_in_data[{s_hi}:{s_lo}] == {src} && p{p}_in_data[{q_hi}:{q_lo}] == qin{p}_{vc}
      && (p{p}_in_head || {zf}));
  always @(posedge clk)
    if (rst) begin qin{p}_{vc} <= 0; nin{src} <= 0; end
    else if (rx{p}_{vc}) begin qin{p}_{vc} <= qin{p}_{vc} + 1; nin{src} <= nin{src} + 1; end
  reg [{s1}:0] osrc{p}_{vc} = 0; reg [{q1}:0] oseq{p}_{vc} = 0;
  wire [{s1}:0] tsrc{p}_{vc} = p{p}_out_data[{s_hi}:{s_lo}];
  wire [{q1}:0] tseq{p}_{vc} = p{p}_out_data[{q_hi}:{q_lo}];
  always @(posedge clk)
    if (!rst && tx{p}_{vc}) begin osrc{p}_{vc} <= tsrc{p}_{vc}; oseq{p}_{vc} <= tseq{p}_{vc}; end
  always @(*) if (!init && !rst && tx{p}_{vc}) begin
    assert(tsrc{p}_{vc} < {nsrc});
    if (!p{p}_out_head)
      assert(tsrc{p}_{vc} == osrc{p}_{vc} && tseq{p}_{vc} == oseq{p}_{vc} + 1 && {ozf});
  end
",
                q1 = qb - 1,
                s1 = sb - 1,
                zf = zero_field(&format!("p{p}_in_data")),
                ozf = zero_field(&format!("p{p}_out_data")),
                nsrc = ports * v
            );
        }
    }
    for src in 0..ports * v {
        let outs = join(ports, " + ", |o| {
            format!("(p{o}_out_valid && p{o}_out_data[{s_hi}:{s_lo}] == {src})")
        });
        let _ = write!(
            s,
            "  reg [15:0] nout{src} = 0;
  always @(posedge clk) if (rst) nout{src} <= 0; else nout{src} <= nout{src} + {outs};
  always @(*) if (!init) assert(nout{src} <= nin{src});
"
        );
    }
    Some(s)
}

/// Bits of a relative mesh address field: 1 + ceil(log2 k)
/// (docs/interface.md, "Head flit").
fn field_bits(spec: &RouterSpec) -> u32 {
    1 + (32 - (spec.radix - 1).leading_zeros())
}

/// The harness text of the routing property: heads arrive with offsets
/// a node of the mesh can have (|offset| < k per dimension), and each
/// head that leaves by port o on VC v carries a field the table permits.
fn routing_checks(spec: &RouterSpec, table: &[BTreeMap<u64, u64>]) -> String {
    let f = field_bits(spec);
    let bits = f * spec.dims;
    let k = i64::from(spec.radix);
    let v = spec.vcs;
    let mut s = String::new();
    for (p, entries) in table.iter().enumerate() {
        for d in 0..spec.dims {
            let _ = writeln!(
                s,
                "  wire signed [{f1}:0] a{p}_{d} = p{p}_in_data[{hi}:{lo}];\n  \
                 always @(*) if (!init && !rst && p{p}_in_valid && p{p}_in_head) \
                 assume(a{p}_{d} > -{k} && a{p}_{d} < {k});",
                f1 = f - 1,
                hi = d * f + f - 1,
                lo = d * f
            );
        }
        let _ = writeln!(
            s,
            "  reg [{v1}:0] ok{p};\n  always @(*) begin\n    ok{p} = 0;\n    case (p{p}_out_data[{b1}:0])",
            v1 = v - 1,
            b1 = bits - 1
        );
        for (key, mask) in entries {
            let _ = writeln!(s, "      {bits}'h{key:x}: ok{p} = {v}'d{mask};");
        }
        let _ = writeln!(
            s,
            "      default: ok{p} = 0;\n    endcase\n  end\n  \
             always @(*) if (!init && !rst && p{p}_out_valid && p{p}_out_head) \
             assert(((ok{p} >> p{p}_out_vc) & 1'b1) != 0);"
        );
    }
    s
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// The router the proofs are measured on: dimension order on a 3x3
    /// mesh, V 2, D 2 (5 ports, W 16).
    pub(crate) fn dor_3x3_v2_d2() -> RouterSpec {
        crate::spec::SpecInput {
            algorithm: Some(crate::spec::Algorithm::DimensionOrder),
            vcs: Some(2),
            buffer_depth: Some(2),
            radix: Some(3),
            ..crate::spec::SpecInput::default()
        }
        .resolve()
        .unwrap()
        .spec
    }

    /// The routing table is the same built densely or in maps, where the
    /// relation reads the input (west-first) and where it does not
    /// (planar-adaptive in three dimensions).
    #[test]
    fn routing_table_dense_is_sparse() {
        for (algorithm, dims) in [
            (crate::spec::Algorithm::WestFirst, 2),
            (crate::spec::Algorithm::PlanarAdaptive, 3),
        ] {
            let spec = crate::spec::SpecInput {
                algorithm: Some(algorithm),
                dims: Some(dims),
                vcs: Some(3),
                flit_width: Some(32),
                ..crate::spec::SpecInput::default()
            }
            .resolve()
            .unwrap()
            .spec;
            let dense = routing_table(&spec).unwrap().unwrap();
            let sparse = routing_table_dense_up_to(&spec, 0).unwrap().unwrap();
            assert_eq!(dense, sparse, "{algorithm:?}");
            assert!(dense.iter().map(BTreeMap::len).sum::<usize>() > 20);
        }
    }

    /// Whether `path` (`in_p[4].vc[1].buffer.queue.count`,
    /// `output_unit.count[79:72]`, `routed[3]`) names a register of the
    /// router `rtl` whose core is `core`: a register of the queue of a
    /// flow-control unit inside the generate loops over the input ports
    /// and their VCs, bits of a register vector of the module of one
    /// instance, or of the core.
    pub(crate) fn names_a_register(rtl: &str, core: &str, path: &str) -> bool {
        let Some((inst, reg)) = path.rsplit_once('.') else {
            return names_register_bits(rtl, core, path);
        };
        let index = |text: &str, label: &str| {
            text.strip_prefix(label)?
                .strip_prefix('[')?
                .strip_suffix(']')?
                .parse::<usize>()
                .ok()
        };
        let Some((q, c)) = inst.strip_suffix(".buffer.queue").and_then(|i| {
            let (port, vc) = i.split_once('.')?;
            Some((index(port, "in_p")?, index(vc, "vc")?))
        }) else {
            // One instance: its module is `<core>_<instance>`.
            return names_register_bits(rtl, &format!("{core}_{inst}"), reg);
        };
        let count = |label: &str, var: &str| {
            rtl.lines().find_map(|l| {
                l.trim()
                    .strip_prefix(&format!("for ({var} = 0; {var} < "))?
                    .strip_suffix(&format!("; {var} = {var} + 1) begin : {label}"))?
                    .parse::<usize>()
                    .ok()
            })
        };
        let (outer, inner) = crate::hdl::GENVARS;
        count("in_p", outer).is_some_and(|n| q < n)
            && count("vc", inner).is_some_and(|n| c < n)
            && register_bits(rtl, &format!("{core}_flow_control_unit_queue"), reg).is_some()
    }

    /// Whether `path` (`count[79:72]`, `routed[3]`) names bits of a
    /// register vector of `module`.
    fn names_register_bits(rtl: &str, module: &str, path: &str) -> bool {
        let Some((reg, select)) = path.strip_suffix(']').and_then(|p| p.split_once('[')) else {
            return false;
        };
        let top = select
            .split(':')
            .next()
            .and_then(|t| t.parse::<usize>().ok());
        matches!((top, register_bits(rtl, module, reg)), (Some(t), Some(w)) if t < w)
    }

    /// The credit proof reads registers the generated router has: each
    /// probe names a register of the RTL (`count` in the queue of the
    /// flow-control unit `in_p[q].vc[c].buffer`, bits of `count` in the output
    /// unit), one per input VC and one per
    /// output VC, with the counters' widths; a flow-control unit without
    /// `count` leaves the router without a credit proof rather than a job
    /// that cannot run.
    #[test]
    fn credit_proof_probes_name_the_routers_registers() {
        let spec = dor_3x3_v2_d2();
        let p = credit_proof(&spec).unwrap().expect("a credit proof");
        let name = spec.name();
        let core = format!("{name}_core");
        let rtl = p.source(&format!("{name}.v")).unwrap();
        let ports = spec.physical_ports() as usize;
        assert_eq!(p.probes.len(), 2 * ports * 2);
        for (wire, reg) in &p.probes {
            let path = reg.trim_start_matches("dut.core.");
            assert!(
                names_a_register(rtl, &core, path),
                "{wire}: no register {reg}"
            );
        }
        // The output unit's counts are as wide as the VC allocator's
        // scores (8 bits), an input buffer's queue count 5.
        assert_eq!(
            register_bits(rtl, &format!("{core}_output_unit"), "count"),
            Some(8 * 2 * ports)
        );
        let sby = p.sby();
        assert!(
            sby.contains("connect -set occ9 \\dut.core.in_p[4].vc[1].buffer.queue.count\n"),
            "{sby}"
        );
        assert!(
            sby.contains("connect -set ocr9 \\dut.core.output_unit.count[79:72]\n"),
            "{sby}"
        );
        assert!(sby.contains("prove: abc pdr"), "{sby}");
        let broken = rtl.replace(" count <= ", " x <= ");
        assert_eq!(
            register_bits(&broken, &format!("{core}_flow_control_unit_queue"), "count"),
            None
        );
    }
}
