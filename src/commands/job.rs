//! `routergen job FILE`, and the flags every command that plans jobs
//! shares (`--executor`, `-j`, `--plan`, `--slurm-args`,
//! `--slurm-parallel`, `--retries`): the executor they choose and the
//! progress line on standard error.

use std::io::{IsTerminal, Write as _};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use super::Outcome;
use crate::cli::{ExecArgs, JobArgs};
use crate::error::{Error, Result};
use crate::jobs::{self, slurm, Event, Executor, ExecutorKind, Plan, Work};

/// This routergen binary, which the jobs run.
fn program() -> Result<PathBuf> {
    std::env::current_exe()
        .map_err(|e| Error::Internal(format!("cannot tell where the routergen binary is: {e}")))
}

/// Runs one job and writes its result; with `--claims`, then the plan's
/// other jobs without a result, claimed one by one.
pub fn run(args: &JobArgs) -> Result<Outcome> {
    let Some(claims) = &args.claims else {
        let job = jobs::run_job(&args.file, &program()?)?;
        eprintln!("routergen job {}: {}: done", job.index, job.what);
        return Ok(Outcome::Success);
    };
    let job = jobs::read_job(&args.file)?;
    // A plan's job files are DIR/jobs/<i>.json.
    let dir = args.file.parent().and_then(Path::parent).ok_or_else(|| {
        Error::InvalidSpec(format!(
            "{}: --claims takes a job file inside its plan (DIR/jobs/<i>.json)",
            args.file.display()
        ))
    })?;
    let plan = Plan::read(dir)?;
    let ran = jobs::run_claiming(
        &plan,
        job.index,
        claims,
        &job.index.to_string(),
        &program()?,
    )?;
    eprintln!("routergen job {}: ran job(s) {ran:?}", job.index);
    Ok(Outcome::Success)
}

/// Whether the flags ask for jobs at all.
pub fn asked(args: &ExecArgs) -> bool {
    args.executor.is_some() || args.plan.is_some()
}

/// The executor the flags choose.
pub fn executor(args: &ExecArgs) -> Result<Executor> {
    let kind = args.executor.unwrap_or(ExecutorKind::Local);
    if kind == ExecutorKind::Local && (args.slurm_args.is_some() || args.slurm_parallel.is_some()) {
        return Err(Error::InvalidSpec(
            "--slurm-args and --slurm-parallel need --executor slurm".into(),
        ));
    }
    Ok(match kind {
        ExecutorKind::Local => Executor::Local {
            workers: args.jobs.map_or_else(
                || std::thread::available_parallelism().map_or(1, |n| n.get()),
                |j| j as usize,
            ),
        },
        ExecutorKind::Slurm => {
            if args.jobs.is_some() {
                return Err(Error::InvalidSpec(
                    "-j counts local workers: with --executor slurm give --slurm-parallel".into(),
                ));
            }
            Executor::Slurm(slurm::Options {
                args: args
                    .slurm_args
                    .as_deref()
                    .map(|a| a.split_whitespace().map(String::from).collect())
                    .unwrap_or_default(),
                parallel: args.slurm_parallel.map(|m| m as usize),
                retries: args.retries,
                ..slurm::Options::default()
            })
        }
    })
}

/// Runs the plan's jobs without results on the flags' executor, with a
/// progress line (jobs done, time left) on standard error.
pub fn execute(plan: &Plan, args: &ExecArgs) -> Result<()> {
    let exec = executor(args)?;
    let program = program()?;
    let skipped = plan.jobs.len() - plan.pending().len();
    eprintln!(
        "routergen: {} job(s) in {}{}",
        plan.jobs.len(),
        plan.dir.display(),
        if skipped > 0 {
            format!(", {skipped} already done")
        } else {
            String::new()
        }
    );
    let started = Instant::now();
    let tty = std::io::stderr().is_terminal();
    let last = Mutex::new(None::<(usize, usize)>);
    let on_event = |e: Event| {
        let mut err = std::io::stderr().lock();
        match e {
            Event::Progress {
                done,
                total,
                last: finished,
            } => {
                let mut last = last.lock().unwrap_or_else(|e| e.into_inner());
                if *last == Some((done, total)) {
                    return;
                }
                *last = Some((done, total));
                let mut line = progress_line(done, total, started.elapsed());
                if let Some(what) = finished {
                    line.push_str(&format!("; last: {what}"));
                }
                if tty {
                    let _ = write!(err, "\r\x1b[2K{line}");
                    if done == total {
                        let _ = writeln!(err);
                    }
                } else {
                    let _ = writeln!(err, "{line}");
                }
            }
            Event::Note(n) => {
                let _ = writeln!(err, "{}routergen: {n}", if tty { "\r\x1b[2K" } else { "" });
            }
        }
    };
    jobs::execute(plan, &exec, &program, &on_event)?;
    Ok(())
}

/// Plans `work` (titled `title`) into the flags' `--plan` directory, else
/// `default` (left for the caller to remove), else a temporary directory
/// removed afterwards; runs the jobs without results on the flags'
/// executor; returns each job's output in the plan's order.
pub fn run_plan(
    args: &ExecArgs,
    default: Option<&Path>,
    title: &str,
    work: Vec<Work>,
) -> Result<Vec<String>> {
    let scratch;
    let dir = match (&args.plan, default) {
        (Some(d), _) => d.as_path(),
        (None, Some(d)) => d,
        (None, None) => {
            scratch = crate::interrupt::Scratch::new("routergen-plan-")?;
            scratch.path()
        }
    };
    let plan = Plan::write(dir, title, work)?;
    execute(&plan, args)?;
    plan.outputs()
}

/// `jobs 3/8 done, 1.2 s, about 2 s left`: time left at the pace so far.
fn progress_line(done: usize, total: usize, elapsed: Duration) -> String {
    let t = elapsed.as_secs_f64();
    let left = if done == 0 {
        "time left unknown".to_string()
    } else if done == total {
        "done".to_string()
    } else {
        format!(
            "about {:.0} s left",
            t / done as f64 * (total - done) as f64
        )
    };
    format!("jobs {done}/{total} done, {t:.1} s, {left}")
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_time_left_is_the_pace_so_far() {
        let l = super::progress_line(2, 8, std::time::Duration::from_secs(4));
        assert_eq!(l, "jobs 2/8 done, 4.0 s, about 12 s left");
        assert!(super::progress_line(0, 8, Default::default()).contains("unknown"));
    }
}
