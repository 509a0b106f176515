//! The Slurm executor: one job array (`sbatch --array=...%M`) over the
//! jobs without a result. Task i runs job i, then claims and runs the
//! other jobs no task has taken yet ([`super::run_claiming`]), so a task
//! that starts keeps its processor until the plan is done: Slurm takes
//! about a second to start a task, as long as a quick study's job. Once
//! every job has its result, the tasks still queued are cancelled.
//! Progress is read from the result files; when the array has left
//! the queue, jobs still without a result (a task that failed, was
//! cancelled or lost with its node) are submitted again, up to a limit.
//! The plan directory and the routergen binary must be on a filesystem
//! every node sees (docs/cluster.md).

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use super::{Event, Plan};
use crate::error::{Error, Result};

/// How the array is submitted and watched.
#[derive(Debug, Clone)]
pub struct Options {
    /// Arguments passed to `sbatch` as they are (partition, time, memory).
    pub args: Vec<String>,
    /// Most tasks running at once (`%M` of `--array`); `None`: no limit.
    pub parallel: Option<usize>,
    /// Times the jobs left without a result are submitted again.
    pub retries: u32,
    /// How often the result files and the queue are looked at.
    pub poll: Duration,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            args: Vec::new(),
            parallel: None,
            retries: 2,
            poll: Duration::from_millis(500),
        }
    }
}

/// The Slurm client `tool` (`sbatch`, `squeue`), or an error saying where
/// it was looked for.
fn client(tool: &str) -> Result<PathBuf> {
    crate::flows::search_tool(tool).ok_or_else(|| Error::Tool {
        tool: tool.to_string(),
        message: "not found on PATH (Debian package slurm-client; the Slurm executor needs \
                  the cluster's client commands, docs/cluster.md)"
            .into(),
    })
}

/// `s` quoted for the shell.
fn quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', "'\\''"))
}

/// Slurm's `--array` list of `indices` (sorted): runs of consecutive
/// indices as ranges, `0-3,7,9-10`.
pub fn array_list(indices: &[usize]) -> String {
    let mut parts: Vec<String> = Vec::new();
    let mut i = 0;
    while i < indices.len() {
        let mut j = i;
        while j + 1 < indices.len() && indices[j + 1] == indices[j] + 1 {
            j += 1;
        }
        parts.push(if i == j {
            indices[i].to_string()
        } else {
            format!("{}-{}", indices[i], indices[j])
        });
        i = j + 1;
    }
    parts.join(",")
}

fn run_tool(tool: &str, args: &[&str]) -> Result<String> {
    let exe = client(tool)?;
    let out = Command::new(&exe)
        .args(args)
        .output()
        .map_err(|e| Error::Tool {
            tool: tool.to_string(),
            message: format!("cannot run {}: {e}", exe.display()),
        })?;
    if !out.status.success() {
        return Err(Error::Tool {
            tool: tool.to_string(),
            message: format!(
                "{} ({})",
                String::from_utf8_lossy(&out.stderr).trim(),
                out.status
            ),
        });
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// Submits the array of `indices`; returns the Slurm job id.
fn submit(plan: &Plan, indices: &[usize], opts: &Options, script: &Path) -> Result<String> {
    let throttle = opts.parallel.map_or(String::new(), |m| format!("%{m}"));
    let array = format!("--array={}{throttle}", array_list(indices));
    let log = plan.dir.join("slurm").join("%A_%a.out");
    let log = format!("--output={}", log.display());
    let mut args: Vec<&str> = vec![
        "--parsable",
        "--job-name=routergen",
        // Tasks that fail are submitted again by us, with a limit.
        "--no-requeue",
        &array,
        &log,
    ];
    args.extend(opts.args.iter().map(String::as_str));
    let script = script.to_string_lossy();
    args.push(&script);
    let out = run_tool("sbatch", &args)?;
    // `--parsable` prints `id` or `id;cluster`.
    let id = out.trim().split(';').next().unwrap_or("").to_string();
    if id.is_empty() || !id.chars().all(|c| c.is_ascii_digit()) {
        return Err(Error::Tool {
            tool: "sbatch".into(),
            message: format!("printed no job id: {out:?}"),
        });
    }
    Ok(id)
}

/// Whether any task of array `id` is still queued or running.
fn in_queue(id: &str) -> Result<bool> {
    match run_tool("squeue", &["--noheader", "--jobs", id, "--format=%i"]) {
        Ok(out) => Ok(!out.trim().is_empty()),
        // A job that left the controller's memory is unknown to squeue.
        Err(Error::Tool { message, .. }) if message.contains("Invalid job id") => Ok(false),
        Err(e) => Err(e),
    }
}

/// Cancels array `id` (an interrupted wait leaves nothing running).
pub fn cancel(id: &str) {
    if let Ok(exe) = client("scancel") {
        let _ = Command::new(exe).arg(id).status();
    }
}

/// Where the tasks of array `id` claim their jobs.
fn claims(plan: &Plan, id: &str) -> PathBuf {
    plan.dir.join("slurm").join("claims").join(id)
}

/// Cancels the tasks of array `id` that have not started.
fn cancel_pending(id: &str) {
    if let Ok(exe) = client("scancel") {
        let _ = Command::new(exe).args(["--state=PENDING", id]).status();
    }
}

/// The end of the log of the task that claimed job `i` (task i if none
/// did), for the error of a job that never gave a result.
fn log_tail(plan: &Plan, id: &str, i: usize) -> String {
    let task = super::claimed_by(&claims(plan, id), i).unwrap_or_else(|| i.to_string());
    let p = plan.dir.join("slurm").join(format!("{id}_{task}.out"));
    match std::fs::read_to_string(&p) {
        Ok(t) => {
            let lines: Vec<&str> = t.lines().collect();
            format!(
                "{}: {}",
                p.display(),
                lines[lines.len().saturating_sub(3)..].join(" / ")
            )
        }
        Err(_) => format!("no log at {}", p.display()),
    }
}

/// Runs the jobs `todo` of `plan` as Slurm array tasks, resubmitting those
/// left without a result up to `opts.retries` times.
pub fn run(
    plan: &Plan,
    todo: &[usize],
    opts: &Options,
    program: &Path,
    on_event: &(dyn Fn(Event) + Sync),
) -> Result<()> {
    if opts.parallel == Some(0) {
        return Err(Error::InvalidSpec(
            "slurm_parallel = 0: give at least 1 task at once, or no limit".into(),
        ));
    }
    let dir = plan.dir.join("slurm");
    let script = dir.join("array.sh");
    let text = format!(
        "#!/bin/sh\n# Task i of this array runs job i of the plan in {}, then the jobs\n\
         # no other task of the array has claimed.\nexec {} job --claims {}/\"$SLURM_ARRAY_JOB_ID\" {}/\"$SLURM_ARRAY_TASK_ID\".json\n",
        plan.dir.display(),
        quote(&program.to_string_lossy()),
        quote(&dir.join("claims").to_string_lossy()),
        quote(&plan.dir.join("jobs").to_string_lossy()),
    );
    crate::atomic::write(&script, text.as_bytes())?;
    let total = todo.len();
    let mut attempt = 0;
    let mut missing: Vec<usize> = todo.to_vec();
    loop {
        let id = submit(plan, &missing, opts, &script)?;
        on_event(Event::Note(format!(
            "submitted Slurm array {id} of {} job(s){}",
            missing.len(),
            if attempt > 0 {
                format!(" (resubmission {attempt} of {})", opts.retries)
            } else {
                String::new()
            }
        )));
        let _cancel = crate::interrupt::on_interrupt({
            let id = id.clone();
            move || cancel(&id)
        });
        let mut shown = usize::MAX;
        loop {
            let queued = in_queue(&id)?;
            // Results are counted after the queue is read: a task that
            // left the queue has written its result by then.
            let done = todo.iter().filter(|&&i| plan.done(i)).count();
            if done != shown {
                shown = done;
                on_event(Event::Progress {
                    done,
                    total,
                    last: None,
                });
            }
            if !queued {
                break;
            }
            if done == total {
                // The tasks still queued would find every job claimed.
                cancel_pending(&id);
                return Ok(());
            }
            std::thread::sleep(opts.poll);
        }
        missing = todo.iter().copied().filter(|&i| !plan.done(i)).collect();
        if missing.is_empty() {
            return Ok(());
        }
        if attempt >= opts.retries {
            return Err(Error::Jobs(format!(
                "{} job(s) left no result after {} submission(s) of Slurm array {id}:\n{}",
                missing.len(),
                attempt + 1,
                missing
                    .iter()
                    .map(|&i| format!(
                        "job {i} ({}): {}",
                        plan.jobs[i].what,
                        log_tail(plan, &id, i)
                    ))
                    .collect::<Vec<_>>()
                    .join("\n")
            )));
        }
        attempt += 1;
        on_event(Event::Note(format!(
            "job(s) {} left no result (failed, cancelled or lost): submitting them again",
            array_list(&missing)
        )));
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn array_lists_join_consecutive_indices() {
        assert_eq!(super::array_list(&[0, 1, 2, 3]), "0-3");
        assert_eq!(super::array_list(&[0, 2, 3, 7, 9, 10]), "0,2-3,7,9-10");
        assert_eq!(super::array_list(&[5]), "5");
    }

    #[test]
    fn quoting_survives_a_quote() {
        assert_eq!(super::quote("a'b"), "'a'\\''b'");
    }
}
