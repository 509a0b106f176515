//! `routergen prove`: formal proofs (SymbiYosys) of the blocks of a
//! router spec, and `routergen block NAME --prove` for one block.

use std::path::{Path, PathBuf};

use super::{resolve_spec, Outcome};
use crate::blocks::{BlockKind, BlockParams};
use crate::cli::ProveArgs;
use crate::error::Result;
use crate::prove::blocks::proof;
use crate::prove::Proof;
use crate::spec::{FlowControl, SpecInput};

/// Where proofs run without `-o`: a fixed folder in the system's temp
/// directory, kept so that a counterexample trace outlives the command.
fn default_dir() -> PathBuf {
    std::env::temp_dir().join("routergen-prove")
}

/// Proves each block of `list`; the jobs go to `out/prove` (or
/// [`default_dir`]). Prints one line per proof: verdict, name, solver
/// time and, for a failure, the trace.
pub fn prove_blocks(list: &[(BlockKind, BlockParams)], out: Option<&Path>) -> Result<Outcome> {
    let proofs = list
        .iter()
        .map(|(kind, params)| proof(*kind, params))
        .collect::<Result<Vec<Proof>>>()?;
    run_proofs(&proofs, out)
}

/// Runs `proofs` in `out/prove` (or [`default_dir`]) and prints a line
/// per proof.
fn run_proofs(proofs: &[Proof], out: Option<&Path>) -> Result<Outcome> {
    let dir = out.map_or_else(default_dir, |d| d.join("prove"));
    let mut failed = false;
    for p in proofs {
        let v = crate::flows::sby::prove(p, &dir)?;
        if v.proved {
            let how = if p.bounded {
                format!("bounded, {} cycles (ABC bmc3)", p.cex_depth)
            } else {
                "unbounded (PDR)".to_string()
            };
            println!("proved  {:<40} {how}, {:.1} s", p.name, v.seconds);
        } else {
            failed = true;
            let trace = v.trace.map_or_else(
                || format!("no trace within {} cycles", p.cex_depth),
                |t| format!("trace {}", t.display()),
            );
            println!("FAILED  {:<40} {trace}", p.name);
        }
        for prop in &p.properties {
            println!("        - {prop}");
        }
    }
    Ok(if failed {
        Outcome::Failed
    } else {
        Outcome::Success
    })
}

/// Proves the blocks of the spec `args` describes, then the router's
/// bounded properties and its credit, liveness and order proofs
/// ([`crate::prove::spec_proofs`]).
pub fn run(args: &ProveArgs) -> Result<Outcome> {
    let spec = resolve_spec(&args.spec, SpecInput::default())?.spec;
    if spec.flow_control != FlowControl::Credit {
        // The router proof is written for credits: say so rather than
        // prove the blocks alone.
        crate::prove::router::proof(&spec)?;
    }
    run_proofs(&crate::prove::spec_proofs(&spec)?, args.out.as_deref())
}
