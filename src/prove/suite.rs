//! `routergen prove --all` (`make prove-all`): every proof routergen has,
//! each at the sizes its time allows, and the mutants each must catch: a
//! copy of the RTL with one planted bug, which the proof must fail on, so
//! every proof is shown able to fail. The blocks at their default sizes
//! (and the flow-control unit with on/off flow control and in block RAM),
//! some at smaller sizes where the mutant's run grows with them, and the
//! whole router (a 3x3 mesh, 2 VCs, D 2): the bounded check for dimension
//! order and Duato, and the unbounded credit, liveness and order proofs.
//!
//! Each proof and each mutant is a job of its own ([`crate::work::Task::Prove`]).

use std::path::Path;

use super::Proof;
use crate::blocks::{BlockKind, BlockParams};
use crate::error::{Error, Result};
use crate::flows::sby::{self, Verdict};
use crate::spec::{Algorithm, BufferStorage, RouterSpec, SpecInput};

/// A planted bug: `from` replaced by `to` once, in the first source of the
/// proof's RTL that holds it.
#[derive(Debug, Clone, Copy)]
pub struct Mutant {
    /// The text replaced.
    pub from: &'static str,
    /// What replaces it.
    pub to: &'static str,
    /// What the bug does, for people.
    pub why: &'static str,
    /// Harness text added before its last `endmodule` for this mutant's
    /// run: assumptions that only remove behaviours, so a counterexample
    /// under them is one of the proof as written.
    pub narrow: &'static str,
    /// The failed run must also write its counterexample trace (the
    /// bounded check that makes it takes seconds on the combinational
    /// blocks, minutes on the others).
    pub trace: bool,
}

/// One proof of the suite and the mutants it must fail on.
pub struct Check {
    /// Its name, `--only` matches against it.
    pub name: &'static str,
    /// Builds the proof.
    pub build: fn() -> Result<Proof>,
    /// The mutants, in order.
    pub mutants: Vec<Mutant>,
}

const fn mutant(from: &'static str, to: &'static str, why: &'static str) -> Mutant {
    Mutant {
        from,
        to,
        why,
        narrow: "",
        trace: false,
    }
}

const fn with_trace(m: Mutant) -> Mutant {
    Mutant { trace: true, ..m }
}

/// The first input buffer drops a flit arriving while it holds one.
const DROPS_A_FLIT: Mutant = mutant(
    "push = in_valid & (count != depth);",
    "push = in_valid & (count != depth) & (count != one);",
    "the first input buffer drops a flit arriving while it holds one",
);

/// The first output VC starts with 3 credits, not D = 2.
const COUNTS_3_CREDITS: Mutant = mutant(
    "count_d[(k)*8 +: 8] = depth;",
    "count_d[(k)*8 +: 8] = (k == 0) ? 8'd3 : depth;",
    "output 0's VC 0 starts with 3 credits, not D = 2",
);

fn block(kind: BlockKind, params: BlockParams) -> Result<Proof> {
    super::blocks::proof(kind, &params)
}

/// The router of the router checks: a 3x3 mesh, 2 VCs, D 2.
fn router(algorithm: Algorithm) -> Result<RouterSpec> {
    Ok(SpecInput {
        algorithm: Some(algorithm),
        vcs: Some(2),
        buffer_depth: Some(2),
        radix: Some(3),
        ..SpecInput::default()
    }
    .resolve()?
    .spec)
}

/// A router proof that exists for credit flow control, or an error.
fn some(p: Result<Option<Proof>>, what: &str) -> Result<Proof> {
    p?.ok_or_else(|| Error::Internal(format!("the suite's router has no {what} proof")))
}

/// Every check of the suite, in the order they are run and reported.
pub fn checks() -> Vec<Check> {
    vec![
        Check {
            name: "flow_control_unit",
            build: || block(BlockKind::FlowControlUnit, BlockParams::default()),
            mutants: vec![mutant(
                "pop = out_valid & out_ready;",
                "pop = out_valid & out_ready & ~in_valid;",
                "a flit leaving while another arrives is not removed",
            )],
        },
        Check {
            name: "flow_control_unit_on_off",
            build: || {
                let p = BlockParams {
                    on_off: true,
                    ..BlockParams::default()
                };
                block(BlockKind::FlowControlUnit, p)
            },
            mutants: vec![],
        },
        Check {
            name: "flow_control_unit_bram",
            build: || {
                let p = BlockParams {
                    buffers: BufferStorage::Bram,
                    ..BlockParams::default()
                };
                block(BlockKind::FlowControlUnit, p)
            },
            mutants: vec![],
        },
        Check {
            name: "crossbar",
            build: || block(BlockKind::Crossbar, BlockParams::default()),
            mutants: vec![],
        },
        Check {
            name: "crossbar_p3_w8",
            build: || {
                let p = BlockParams {
                    ports: 3,
                    flit_width: 8,
                    ..BlockParams::default()
                };
                block(BlockKind::Crossbar, p)
            },
            mutants: vec![mutant(
                "| in_tail_1;",
                "| in_head_1;",
                "output 0's tail mark taken from input 1's head mark",
            )],
        },
        Check {
            name: "routing_arbiter",
            build: || block(BlockKind::RoutingArbiter, BlockParams::default()),
            mutants: vec![],
        },
        Check {
            name: "routing_arbiter_p3",
            build: || {
                let p = BlockParams {
                    ports: 3,
                    ..BlockParams::default()
                };
                block(BlockKind::RoutingArbiter, p)
            },
            mutants: vec![mutant(
                "if (~won_0 & pick_1_v",
                "if (pick_1_v",
                "output 0 may be granted to two inputs in one cycle",
            )],
        },
        Check {
            name: "vc_controller",
            build: || block(BlockKind::VcController, BlockParams::default()),
            mutants: vec![],
        },
        Check {
            name: "vc_controller_v2_w8_d2",
            build: || {
                let p = BlockParams {
                    vcs: 2,
                    flit_width: 8,
                    depth: 2,
                    ..BlockParams::default()
                };
                block(BlockKind::VcController, p)
            },
            mutants: vec![mutant(
                "vc_send_req[v] = grant[v];",
                "vc_send_req[v] = grant[v] & (v != 1);",
                "VC 1's flit sent without leaving its buffer",
            )],
        },
        Check {
            name: "header_selector",
            build: || block(BlockKind::HeaderSelector, BlockParams::default()),
            mutants: vec![with_trace(mutant(
                "out_hdr = hdr_1;",
                "out_hdr = hdr_0;",
                "candidate 1 selected shows candidate 0's header",
            ))],
        },
        Check {
            name: "address_decoder",
            build: || block(BlockKind::AddressDecoder, BlockParams::default()),
            mutants: vec![with_trace(mutant(
                "6'h9: mask = 5'h2;",
                "6'h9: mask = 5'h8;",
                "(+x, +y) routed along +y first",
            ))],
        },
        Check {
            name: "economical_storage_table",
            build: || block(BlockKind::EconomicalStorageTable, BlockParams::default()),
            mutants: vec![],
        },
        Check {
            name: "economical_storage_table_w8",
            build: || {
                let p = BlockParams {
                    flit_width: 8,
                    ..BlockParams::default()
                };
                block(BlockKind::EconomicalStorageTable, p)
            },
            // Only the relation's table, not the block's own, says this
            // reset entry is wrong.
            mutants: vec![mutant(
                "mask_d[2*5+o] = init_mask[2*5+o];",
                "mask_d[2*5+o] = init_mask[2*5+o] & (o != 2);",
                "the reset entry of (-x, 0) permits no output (the relation's table says -x)",
            )],
        },
        Check {
            name: "lookahead_mux",
            build: || block(BlockKind::LookaheadMux, BlockParams::default()),
            mutants: vec![with_trace(mutant(
                "if (next_mask_5) begin\n                field = field | bit_0;",
                "if (next_mask_5) begin\n                field = field | bit_1;",
                "candidate 1's local-port bit written as bit 1 of the new field",
            ))],
        },
        Check {
            name: "router_dor",
            build: || super::router::proof(&router(Algorithm::DimensionOrder)?),
            mutants: vec![
                mutant(
                    "6'h9: mask = 10'hc;",
                    "6'h9: mask = 10'hc0;",
                    "the address decoders send (+x, +y) heads along +y",
                ),
                DROPS_A_FLIT,
                COUNTS_3_CREDITS,
            ],
        },
        Check {
            name: "router_duato",
            build: || super::router::proof(&router(Algorithm::Duato)?),
            mutants: vec![],
        },
        Check {
            name: "router_dor_credits",
            build: || {
                some(
                    super::router::credit_proof(&router(Algorithm::DimensionOrder)?),
                    "credit",
                )
            },
            mutants: vec![
                mutant(
                    "credit_out = pop;",
                    "credit_out = out_valid;",
                    "the first input buffer returns a credit in every cycle its front flit waits",
                ),
                DROPS_A_FLIT,
                COUNTS_3_CREDITS,
            ],
        },
        Check {
            name: "router_dor_liveness",
            build: || {
                some(
                    super::liveness::proof(&router(Algorithm::DimensionOrder)?),
                    "liveness",
                )
            },
            // A counterexample is longer than the bound, and with every
            // input free the solvers found none in minutes; one sender
            // (port 0, VC 0) only removes behaviours, and PDR finds one
            // under it in seconds.
            mutants: vec![Mutant {
                narrow: "  always @(*) if (!init && !rst) assume(!p1_in_valid && !p2_in_valid && \
                         !p3_in_valid && !p4_in_valid && (!p0_in_valid || p0_in_vc == 0));\n",
                ..mutant(
                    "ready[q*2+c] = valid[q*2+c] & may_send[q*2+c];",
                    "ready[q*2+c] = valid[q*2+c] & may_send[q*2+c] & (q*2+c != 0);",
                    "the first input VC is never ready for the switch allocator \
                     (under one sender)",
                )
            }],
        },
        Check {
            name: "router_dor_order",
            build: || {
                some(
                    super::order::proof(&router(Algorithm::DimensionOrder)?),
                    "order",
                )
            },
            // Every slot k reads as slot 0: with D = 2, slot 0 where the
            // front is slot 1.
            mutants: vec![mutant(
                "front = slot_data[(k)*16 +: 16];",
                "front = slot_data[0 +: 16];",
                "the first input buffer shows slot 0 when its front is slot 1",
            )],
        },
    ]
}

/// The check called `name`, or an error listing the names.
pub fn find(name: &str) -> Result<Check> {
    let all = checks();
    let names: Vec<&str> = all.iter().map(|c| c.name).collect();
    let list = names.join(", ");
    all.into_iter().find(|c| c.name == name).ok_or_else(|| {
        Error::InvalidSpec(format!(
            "check = {name} is not a check of the proof suite; they are: {list}"
        ))
    })
}

impl Check {
    /// The proof, or with `mutant` the proof of that mutant (its place in
    /// [`Check::mutants`]).
    pub fn proof(&self, mutant: Option<usize>) -> Result<(Proof, bool)> {
        let proof = (self.build)()?;
        let Some(k) = mutant else {
            return Ok((proof, true));
        };
        let m = self.mutants.get(k).ok_or_else(|| {
            Error::InvalidSpec(format!(
                "mutant = {k} is out of range: {} has {} mutant(s), numbered from 0",
                self.name,
                self.mutants.len()
            ))
        })?;
        let rtl = proof.sources.len().saturating_sub(1);
        let file = proof.sources[..rtl]
            .iter()
            .find(|(_, text)| text.contains(m.from))
            .map(|(f, _)| f.clone())
            .ok_or_else(|| {
                Error::Internal(format!(
                    "the RTL of {} has no '{}' to mutate",
                    proof.name, m.from
                ))
            })?;
        let mut p = proof
            .mutated(&file, m.from, m.to)
            .ok_or_else(|| Error::Internal(format!("{file} lost '{}'", m.from)))?;
        if !m.narrow.is_empty() {
            let harness = &mut p.sources[rtl].1;
            let end = harness.rfind("endmodule").ok_or_else(|| {
                Error::Internal(format!("the harness of {} has no endmodule", self.name))
            })?;
            harness.insert_str(end, m.narrow);
        }
        Ok((p, m.trace))
    }
}

/// Runs check `name`'s proof, or its mutant `mutant`, in `dir` (or a
/// scratch directory removed afterwards). A failed proof of the check
/// itself is replayed for its trace; a mutant's only where it asks for
/// one.
pub fn run(name: &str, mutant: Option<usize>, dir: Option<&Path>) -> Result<Verdict> {
    let (proof, trace) = find(name)?.proof(mutant)?;
    let scratch;
    let dir = match dir {
        Some(d) => d,
        None => {
            scratch = crate::interrupt::Scratch::new("routergen-prove-")?;
            scratch.path()
        }
    };
    Ok(sby::prove_with(&proof, dir, trace)?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_every_mutant_applies_once() {
        let all = checks();
        let mut names: Vec<&str> = all.iter().map(|c| c.name).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), all.len());
        for c in &all {
            let (real, _) = c.proof(None).unwrap();
            for k in 0..c.mutants.len() {
                let (m, _) = c.proof(Some(k)).unwrap();
                assert_ne!(
                    m.sources, real.sources,
                    "{} mutant {k} changes nothing",
                    c.name
                );
            }
        }
    }

    #[test]
    fn unknown_checks_and_mutants_are_refused_by_name() {
        let e = find("nope")
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default();
        assert!(
            e.contains("check = nope") && e.contains("router_dor_order"),
            "{e}"
        );
        let e = find("crossbar")
            .and_then(|c| c.proof(Some(0)))
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default();
        assert!(e.contains("mutant = 0") && e.contains("0 mutant(s)"), "{e}");
    }
}
