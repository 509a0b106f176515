//! Co-simulation: the rust-hdl model against a Verilator build of the
//! emitted Verilog, cycle by cycle, with a faulty copy that must be caught.

use super::*;

/// The co-simulation of `core` (a router's rust-hdl model against its core
/// module) moved to the clean top module of docs/interface.md: the same
/// stimulus and model outputs, packed into the documented ports (credit bits
/// into V-bit buses, VC numbers into VB bits, node_id into its
/// coordinates), through a small adapter that names the clock `clock` as
/// the harness expects.
pub(crate) fn through_top(s: &RouterSpec, core: &crate::blocks::Variant) -> crate::blocks::Variant {
    use crate::flows::verilator::Port as VPort;
    let text = verilog(s).expect("supported");
    let top_ports = declared_ports(&text, &s.name());
    let adapter = format!("{}_cosim", s.name());
    let v = s.vcs as usize;
    let mut ports = vec![VPort {
        name: "clock".into(),
        width: 1,
        input: true,
    }];
    let mut decls = vec!["    input wire clock;".to_string()];
    let mut conns = vec![".clk(clock)".to_string()];
    for (name, input, width) in top_ports.iter().filter(|p| p.0 != "clk") {
        ports.push(VPort {
            name: name.clone(),
            width: *width as usize,
            input: *input,
        });
        let dir = if *input { "input" } else { "output" };
        decls.push(format!("    {dir} wire [{}:0] {name};", width - 1));
        conns.push(format!(".{name}({name})"));
    }
    let names: Vec<&str> = ports.iter().map(|p| p.name.as_str()).collect();
    let wrapper = format!(
        "module {adapter}({});\n{}\n    {} dut({});\nendmodule\n",
        names.join(", "),
        decls.join("\n"),
        s.name(),
        conns.join(", ")
    );
    let core_in: Vec<&str> = core
        .ports
        .iter()
        .filter(|p| p.input && p.name != "clock")
        .map(|p| p.name.as_str())
        .collect();
    let core_out: Vec<&str> = core
        .ports
        .iter()
        .filter(|p| !p.input)
        .map(|p| p.name.as_str())
        .collect();
    let at = |list: &[&str], row: &[u64], name: &str| -> u64 {
        let k = list.iter().position(|n| *n == name).expect(name);
        row[k]
    };
    // Top port `p<P>_<sig>` from the core's `<sig>_P` (or `<sig>_(P V + c)`
    // packed for the credit buses).
    let value = |list: &[&str], row: &[u64], port: &VPort| -> u64 {
        let mask = if port.width >= 64 {
            u64::MAX
        } else {
            (1 << port.width) - 1
        };
        if port.name == "cfg_mask" {
            return (0..port.width)
                .map(|o| at(list, row, &format!("cfg_mask_{o}")) << o)
                .sum();
        }
        let Some((pp, sig)) = port
            .name
            .split_once('_')
            .filter(|(a, _)| a.starts_with('p'))
        else {
            return at(list, row, &port.name) & mask;
        };
        let q: usize = pp[1..].parse().expect("port number");
        if sig.ends_with("credit") {
            (0..v)
                .map(|c| at(list, row, &format!("{sig}_{}", q * v + c)) << c)
                .sum()
        } else {
            at(list, row, &format!("{sig}_{q}")) & mask
        }
    };
    let ins: Vec<&VPort> = ports.iter().skip(1).filter(|p| p.input).collect();
    let outs: Vec<&VPort> = ports.iter().filter(|p| !p.input).collect();
    crate::blocks::Variant {
        top: adapter,
        verilog: format!("{text}\n{wrapper}"),
        stimulus: core
            .stimulus
            .iter()
            .map(|row| ins.iter().map(|p| value(&core_in, row, p)).collect())
            .collect(),
        model: core
            .model
            .iter()
            .map(|row| outs.iter().map(|p| value(&core_out, row, p)).collect())
            .collect(),
        ports,
    }
}

/// Co-simulation: the rust-hdl router and a Verilator build of its emitted
/// Verilog on the same seeded random stimulus, every output every cycle
/// (all configurations and a faulty copy in one build): a torus (its core
/// module) and a hypercube that reads node_id (through the clean top
/// module). Meshes use the same glue; `emitted_verilog_matches_the_model_more`
/// (ignored) adds a mesh, absolute addressing and *-channels.
#[test]
fn emitted_verilog_matches_the_model() {
    cosimulate_with_mutant(&[
        spec_on(Algorithm::DimensionOrder, Topology::Torus, 2, 4, 2),
        RouterSpec {
            path_selection: PathSelection::Lfu,
            ..spec_on(Algorithm::NegativeFirst, Topology::Hypercube, 3, 2, 2)
        },
    ]);
}

/// The economical-storage table under random programming through `cfg_*`
/// (its core, and a hypercube through the clean top module); the faulty
/// copy reads every entry's VC class as 1 where it is 0 (with one class,
/// class 1 permits nothing: no head flit is ever routed).
#[test]
fn economical_table_matches_the_model() {
    cosimulate_with(
        &[
            economical(spec(Algorithm::DimensionOrder, 4, 1)),
            economical(spec_on(Algorithm::Duato, Topology::Hypercube, 2, 2, 2)),
        ],
        (
            "(tclass[(e)*4 +: 4] == class_id_0)",
            "(tclass[(e)*4 +: 4] == 4'd1)",
        ),
    );
}

/// The full and meta tables under random programming through `cfg_*` and
/// random node ids (the reset ROM): a torus's meta table through its core,
/// a hypercube's full table through the clean top module; the faulty copy
/// compares own-cluster entry 1's word line with entry 2's coordinate
/// value.
#[test]
fn full_and_meta_tables_match_the_model() {
    cosimulate_with(
        &[
            meta_table(spec_on(Algorithm::DimensionOrder, Topology::Torus, 2, 4, 2)),
            full_table(spec_on(Algorithm::Duato, Topology::Hypercube, 2, 2, 2)),
        ],
        (
            "16'hc, 16'h8, 16'h4, 16'h0};",
            "16'hc, 16'h8, 16'h8, 16'h0};",
        ),
    );
}

/// Look-ahead: a Duato mesh through its core (every decoder of the next
/// routers' fields, the mux, the field registers), a hypercube under
/// negative-first (its decoders read the neighbours' node ids) through the
/// top module, a torus (the field's dateline bits); in the faulty copy
/// the mux never receives a link's next-router field (heads leave with
/// an empty field, which permits nothing at the next router).
#[test]
fn lookahead_matches_the_model() {
    cosimulate_with(
        &[
            lookahead(
                spec_with(Algorithm::Duato, 4, 2, PathSelection::MaxCredit),
                16,
            ),
            lookahead(
                spec_on(Algorithm::NegativeFirst, Topology::Hypercube, 3, 2, 2),
                16,
            ),
            lookahead(
                spec_on(Algorithm::DimensionOrder, Topology::Torus, 2, 4, 2),
                16,
            ),
            lookahead(
                spec_on(Algorithm::DimensionOrder, Topology::UniTorus, 2, 4, 2),
                16,
            ),
        ],
        (
            "lamux_next_mask[(q)*25+j*5+b] = ladec_cand[(m)*5+b];",
            "lamux_next_mask[(q)*25+j*5+b] = 1'b0;",
        ),
    );
}

/// One cycle per router (`pipeline = 1`): a mesh under dimension order
/// through its core, Duato on a mesh and dimension order on a torus
/// through the top module; the faulty copy never routes a head flit
/// arriving on port 1 in the cycle it arrives (it waits a cycle in
/// its buffer, as with two cycles per router).
#[test]
fn pipeline_1_matches_the_model() {
    let p1 = |s: RouterSpec| RouterSpec { pipeline: 1, ..s };
    cosimulate_with(
        &[
            p1(lookahead(spec(Algorithm::DimensionOrder, 4, 2), 16)),
            p1(lookahead(
                spec_with(Algorithm::Duato, 4, 2, PathSelection::MaxCredit),
                16,
            )),
            p1(lookahead(
                spec_on(Algorithm::DimensionOrder, Topology::Torus, 2, 4, 2),
                16,
            )),
        ],
        (
            "if (buffered[1*2+c] & in_valid_1 &",
            "if (buffered[1*2+c] & 1'b0 &",
        ),
    );
}

/// On/off flow control: a torus through its core, a mesh choosing by
/// MAX-CREDIT (the levels) through the top module; in the faulty copy an
/// input VC keeping its output VC may send on it whatever its downstream
/// level.
#[test]
fn on_off_flow_control_matches_the_model() {
    cosimulate_with(
        &[
            on_off(
                spec_on(Algorithm::DimensionOrder, Topology::Torus, 2, 4, 2),
                2,
            ),
            on_off(
                spec_with(Algorithm::WestFirst, 4, 2, PathSelection::MaxCredit),
                2,
            ),
        ],
        (
            "cok_d[q*2+c] = output_unit_may_send0[o*2+x];",
            "cok_d[q*2+c] = 1'b1;",
        ),
    );
}

pub(crate) fn bram(s: RouterSpec) -> RouterSpec {
    RouterSpec {
        buffers: crate::spec::BufferStorage::Bram,
        ..s
    }
}

/// Input buffers in block RAM: the scoreboard (every flit once, in order,
/// unchanged, to a permitted port) on a torus and under west-first with
/// absolute addressing and on/off flow control; Verilator -Wall and
/// Icarus -Wall on both; co-simulation of the torus through its core, with
/// a faulty copy whose first input buffer shows the RAM's read (the old
/// entry) where a flit landed in the same edge.
#[test]
fn block_ram_buffers_pass_the_scoreboard_and_match_the_model() {
    let torus = bram(spec_on(Algorithm::DimensionOrder, Topology::Torus, 2, 4, 2));
    let west = bram(on_off(
        absolute(spec_with(
            Algorithm::WestFirst,
            4,
            2,
            PathSelection::MaxCredit,
        )),
        3,
    ));
    for (s, node, seed) in [(&torus, 0, 41), (&west, node_at(&west, &[1, 2]), 42)] {
        let cycles = run(s, node, 20, seed);
        eprintln!("{} with block RAM: {cycles} cycles", s.name());
    }
    lint_and_synth(&[(torus.clone(), false), (west.clone(), false)]);
    cosimulate_with(
        &[torus],
        (
            "bypassed_d = write & (next_front_slot == write_slot);",
            "bypassed_d = 1'b0;",
        ),
    );
}

/// Input buffers in distributed RAM (the ECP5's TRELLIS_DPR16X4): the
/// scoreboard on a torus with two VCs, Verilator -Wall and Icarus -Wall,
/// and co-simulation through its core, with a faulty copy whose first
/// input buffer reads its RAM at the read pointer's next value (the flit
/// after the oldest).
#[test]
fn distributed_ram_buffers_pass_the_scoreboard_and_match_the_model() {
    let torus = RouterSpec {
        buffers: crate::spec::BufferStorage::Lutram,
        ..spec_on(Algorithm::DimensionOrder, Topology::Torus, 2, 4, 2)
    };
    let cycles = run(&torus, 0, 20, 43);
    eprintln!("{} with distributed RAM: {cycles} cycles", torus.name());
    lint_and_synth(&[(torus.clone(), false)]);
    cosimulate_with(
        &[torus],
        (
            "lutram_0_read_address = queue_front_slot;",
            "lutram_0_read_address = queue_next_front_slot;",
        ),
    );
}

#[test]
#[ignore]
fn emitted_verilog_matches_the_model_more() {
    cosimulate_with_mutant(&[
        spec(Algorithm::DimensionOrder, 4, 1),
        absolute(spec_with(Algorithm::Duato, 4, 2, PathSelection::MaxCredit)),
        absolute(spec_on(Algorithm::StarChannels, Topology::Torus, 2, 5, 3)),
    ]);
}

/// [`emitted_verilog_matches_the_model`] on `configs`: the first through
/// its core module (and a faulty copy of it), the others through their
/// clean top modules.
pub(crate) fn cosimulate_with_mutant(configs: &[RouterSpec]) {
    // A faulty copy: an output VC stays held after its tail has left.
    cosimulate_with(
        configs,
        ("& xbar_tail[o]) begin", "& xbar_tail[o] & 1'b0) begin"),
    );
}

/// The routers of `configs` against their Verilog, the first also as a
/// copy with `mutation` applied, which must be caught.
pub(crate) fn cosimulate_with(configs: &[RouterSpec], mutation: (&str, &str)) {
    use crate::blocks::tool_checks::cosimulate_with_mutant;
    use crate::blocks::Variant;
    use crate::flows::require_tool;
    if !require_tool("verilator") {
        return;
    }
    let t0 = std::time::Instant::now();
    let mut variants = Vec::new();
    for (n, s) in configs.iter().enumerate() {
        // Short buffers fill often: back-pressure in the random stimulus.
        let s = RouterSpec {
            buffer_depth: 2,
            ..s.clone()
        };
        let mut r = Router::<16>::new(&s).expect("supported");
        crate::blocks::prepare(&mut r);
        let core = core_verilog(&s).expect("supported");
        let var = Variant::new(&mut r, &core, &core_name(&s), 2000, 0x7007 + n as u64);
        variants.push(if n == 0 { var } else { through_top(&s, &var) });
        eprintln!("{}: model {:?}", s.name(), t0.elapsed());
    }
    cosimulate_with_mutant(variants, mutation);
    eprintln!("co-simulation {:?}", t0.elapsed());
}
