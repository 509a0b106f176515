//! Bounded liveness of the whole router as a safety property, proved
//! unbounded with ABC's PDR: an input VC whose front flit belongs to a
//! packet with an output VC allocated, and whose output VC has a
//! downstream credit, sends that flit within [`BOUND`] cycles.
//!
//! A harness counter per input VC counts the consecutive cycles the
//! condition has held without the front flit leaving, and the harness
//! asserts it stays below [`BOUND`]. A safety proof of that counter is
//! stronger than a bounded check of the same promise: it holds at every
//! depth, from every reachable state.
//!
//! The flit payload does not steer the switch allocator, so the proof
//! cuts the buffers' data registers ([`super::Proof::cuts`]): their
//! outputs become unconstrained in every cycle (the routing fields of
//! waiting heads too). The cut design can do everything the real one
//! can, so the property proved on it holds on the router.
//!
//! Assumed of the environment: the credit proof's ([`super::router::credit_harness`],
//! docs/interface.md): senders keep a credit count from D and send only
//! with a credit, packets framed per VC, VC numbers below V, downstream
//! credits only for flits it holds. No fairness is assumed of the
//! neighbours: the condition includes the downstream credit, and an
//! output VC held by a packet spends its credits on that packet only, so
//! once the condition holds it holds until the flit leaves.

use std::fmt::Write as _;

use super::router::{credit_harness, credit_properties, register_bits, register_element, DEPTH};
use super::Proof;
use crate::error::Result;
use crate::spec::RouterSpec;

/// The bound N of the liveness property, in cycles: PDR proves the
/// 5-port 2-VC router's wait below 20 in about a minute; below 8 it gave
/// no verdict in 15 minutes (docs/prove.md).
pub const BOUND: usize = 20;

/// The router's liveness proof (credit flow control, the unified datapath
/// with flip-flop buffers; `None` for others), with the credit proof's
/// properties beside it.
///
/// Beyond the credit proof's probes it reads, per input VC i, whether the
/// buffer's front slot holds a flit (`front_valid` of `fcu_i`'s queue),
/// whether its packet has an output VC (`routed_i`), which one (`rport_i`,
/// `rvc_i`) and whether the front flit leaves this cycle (the queue's
/// `pop`); the downstream credits are the harness's own model of them.
pub fn proof(spec: &RouterSpec) -> Result<Option<Proof>> {
    let name = spec.name();
    let top = format!("{name}_liveness_formal");
    let Some(mut h) = credit_harness(spec, &top)? else {
        return Ok(None);
    };
    let core = format!("{name}_core");
    let ports = spec.physical_ports() as usize;
    let v = spec.vcs as usize;
    let vcs = ports * v;
    let (Some((pb, _)), Some((vb, _))) = (
        register_element(&h.rtl, &core, "rport", 0, vcs),
        register_element(&h.rtl, &core, "rvc", 0, vcs),
    ) else {
        return Ok(None);
    };
    let fcu = format!("{core}_flow_control_unit");
    if register_bits(&h.rtl, &format!("{fcu}_queue"), "front_valid").is_none()
        || register_bits(&h.rtl, &format!("{fcu}_flops"), "slot_data").is_none()
        || register_bits(&h.rtl, &core, "routed").is_none()
    {
        return Ok(None);
    }
    let d = spec.buffer_depth as usize;
    let cb = super::router::bits_for(d + 1) + 1;
    let wb = super::router::bits_for(BOUND + 1);
    for i in 0..vcs {
        let mut pick = String::new();
        for j in 0..vcs {
            let _ = writeln!(pick, "      {j}: crs{i} = cr{j};");
        }
        let _ = write!(
            h.text,
            "  (* keep *) wire fv{i}, rt{i}, pop{i};
  (* keep *) wire [{pb1}:0] rp{i}; (* keep *) wire [{vb1}:0] rv{i};
  reg [{cb1}:0] crs{i};
  always @(*) begin
    crs{i} = 0;
    case (rp{i} * {v} + rv{i})
{pick}      default: crs{i} = 0;
    endcase
  end
  wire waits{i} = fv{i} && rt{i} && crs{i} != 0;
  reg [{wb1}:0] wt{i} = 0;
  always @(posedge clk) if (rst) wt{i} <= 0; else wt{i} <= (waits{i} && !pop{i}) ? wt{i} + 1 : 0;
  always @(*) if (!init && !rst) assert(wt{i} < {BOUND});
",
            pb1 = pb - 1,
            vb1 = vb - 1,
            cb1 = cb - 1,
            wb1 = wb - 1,
        );
        let queue = crate::router::buffer_queue_instance(i, v);
        let element = |reg: &str| {
            register_element(&h.rtl, &core, reg, i, vcs).map_or_else(String::new, |e| e.1)
        };
        for (wire, reg) in [
            ("fv", format!("{queue}.front_valid")),
            ("rt", element("routed")),
            ("rp", element("rport")),
            ("rv", element("rvc")),
            ("pop", format!("{queue}.pop")),
        ] {
            h.probes
                .push((format!("{wire}{i}"), format!("dut.core.{reg}")));
        }
    }
    let mut properties = vec![format!(
        "liveness, bounded: an input VC's front flit whose packet holds an output VC with a \
         downstream credit leaves within {BOUND} cycles"
    )];
    properties.extend(credit_properties());
    let cuts = vec![format!("{fcu}*/w:slot_data")];
    Ok(Some(h.proof(
        &name,
        "liveness",
        &top,
        properties,
        DEPTH + BOUND,
        cuts,
    )))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The liveness proof reads registers and wires the generated router
    /// has (each probe's register module, or `pop` in the queue of the input
    /// VC's flow-control unit), and its cut point names the buffers' data
    /// registers, every one of them.
    #[test]
    fn liveness_probes_and_cuts_name_the_routers_registers() {
        let spec = crate::prove::router::tests::dor_3x3_v2_d2();
        let p = proof(&spec).unwrap().expect("a liveness proof");
        let name = spec.name();
        let core = format!("{name}_core");
        let rtl = p.source(&format!("{name}.v")).unwrap();
        let vcs = spec.physical_ports() as usize * 2;
        assert_eq!(p.probes.len(), 7 * vcs);
        let fcu = format!("{core}_flow_control_unit");
        for (wire, reg) in &p.probes {
            let path = reg.trim_start_matches("dut.core.");
            if let Some(inst) = path.strip_suffix(".pop") {
                assert!(
                    inst.starts_with("in_p[") && inst.ends_with("].buffer.queue"),
                    "{wire}"
                );
                let at = rtl.find(&format!("module {fcu}_queue (")).unwrap();
                let end = at + rtl[at..].find("endmodule").unwrap();
                assert!(
                    rtl[at..end].contains("pop = out_valid & out_ready;"),
                    "{wire}"
                );
                continue;
            }
            assert!(
                crate::prove::router::tests::names_a_register(rtl, &core, path),
                "{wire}: no register {reg}"
            );
        }
        assert_eq!(p.cuts, vec![format!("{fcu}*/w:slot_data")]);
        assert_eq!(
            register_bits(rtl, &format!("{fcu}_flops"), "slot_data"),
            Some(2 * 16),
            "a data register per slot of the input VC"
        );
        let sby = p.sby();
        assert!(
            sby.contains(&format!("proc\ncutpoint {fcu}*/w:slot_data\nflatten\n")),
            "{sby}"
        );
        assert!(sby.contains("prove: abc pdr"), "{sby}");
    }
}
