//! `routergen prove`: formal proofs (SymbiYosys) of the blocks of a
//! router spec, and `routergen block NAME --prove` for one block.

use std::path::{Path, PathBuf};

use super::{resolve_spec, Outcome};
use crate::blocks::{BlockKind, BlockParams};
use crate::cli::ProveArgs;
use crate::error::{Error, Result};
use crate::prove::blocks::proof;
use crate::prove::suite::{self, Check};
use crate::prove::Proof;
use crate::spec::{FlowControl, SpecInput};
use crate::work::{self, Output, Task};

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
    // Interrupted, the command leaves no directory it made.
    let _interrupt = (!dir.exists()).then(|| crate::interrupt::remove_on_interrupt(&dir));
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
/// ([`crate::prove::spec_proofs`]); with `--all`, the proof suite as jobs
/// ([`suite`]).
pub fn run(args: &ProveArgs) -> Result<Outcome> {
    if args.all {
        return run_suite(args);
    }
    if super::job::asked(&args.exec) || args.exec.jobs.is_some() {
        return Err(Error::InvalidSpec(
            "--executor, -j and --plan run the jobs of --all: give --all, or leave them out".into(),
        ));
    }
    let spec = resolve_spec(&args.spec, SpecInput::default())?.spec;
    if spec.flow_control != FlowControl::Credit {
        // The router proof is written for credits: say so rather than
        // prove the blocks alone.
        crate::prove::router::proof(&spec)?;
    }
    run_proofs(&crate::prove::spec_proofs(&spec)?, args.out.as_deref())
}

/// `routergen prove --all`: every check of [`crate::prove::suite`] (those
/// whose name holds `--only`), its proof and each mutant a job on the
/// flags' executor; a line per job, in the suite's order: `ok` when the
/// proof holds or the mutant fails it (with its trace where it asks for
/// one), `FAILED` otherwise.
fn run_suite(args: &ProveArgs) -> Result<Outcome> {
    if args.spec.config.is_some() || args.spec.input != SpecInput::default() {
        return Err(Error::InvalidSpec(
            "--all runs routergen's own proof suite, each proof at its own sizes: give no \
             spec options with it"
                .into(),
        ));
    }
    super::job::executor(&args.exec)?;
    let only = args.only.as_deref().unwrap_or("");
    let checks: Vec<Check> = suite::checks()
        .into_iter()
        .filter(|c| c.name.contains(only))
        .collect();
    if checks.is_empty() {
        let names: Vec<&str> = suite::checks().iter().map(|c| c.name).collect();
        return Err(Error::InvalidSpec(format!(
            "only = {only} is in no proof's name; they are: {}",
            names.join(", ")
        )));
    }
    // Absolute: a job may run in another directory (a Slurm task).
    let out = match &args.out {
        Some(o) => Some(std::path::absolute(o).map_err(|e| Error::Output {
            path: o.clone(),
            message: e.to_string(),
        })?),
        None => None,
    };
    let mut tasks = Vec::new();
    let mut expect = Vec::new();
    for c in &checks {
        let dir = |leaf: String| out.as_ref().map(|o| o.join("prove").join(leaf));
        tasks.push((
            format!("proof {}", c.name),
            Task::Prove {
                check: c.name.into(),
                mutant: None,
                dir: dir(c.name.into()),
            },
        ));
        expect.push(None);
        for (k, m) in c.mutants.iter().enumerate() {
            tasks.push((
                format!("{} mutant {k}: {}", c.name, m.why),
                Task::Prove {
                    check: c.name.into(),
                    mutant: Some(k),
                    dir: dir(format!("{}_mutant{k}", c.name)),
                },
            ));
            expect.push(Some(m.trace));
        }
    }
    let outputs = work::run_all(&tasks, |w| {
        super::job::run_plan(&args.exec, None, "routergen prove --all", w)
    })?;
    let mut good = 0;
    for (((what, _), want), out) in tasks.iter().zip(&expect).zip(&outputs) {
        let Output::Proved { proved, trace } = out else {
            return Err(Error::Internal(format!(
                "a proof job's result is of another kind: {out:?}"
            )));
        };
        let verdict = match (want, proved, trace) {
            (None, true, _) => Ok("proved"),
            (None, false, _) => Err("not proved"),
            (Some(_), true, _) => Err("proved, yet the mutant must fail it"),
            (Some(true), false, false) => Err("fails, but wrote no trace"),
            (Some(true), false, true) => Ok("fails, with its trace"),
            (Some(false), false, _) => Ok("fails"),
        };
        match verdict {
            Ok(v) => {
                good += 1;
                println!("ok      {what}: {v}");
            }
            Err(v) => println!("FAILED  {what}: {v}"),
        }
    }
    println!("{good} of {} as they must be", tasks.len());
    Ok(if good == tasks.len() {
        Outcome::Success
    } else {
        Outcome::Failed
    })
}
