//! The local executor: a pool of worker threads on this machine, each
//! running one job at a time as its own `routergen job FILE` process (the
//! same command a Slurm task runs, so both executors do the same work the
//! same way).

use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use super::{Event, Plan};
use crate::error::{Error, Result};

/// The last lines of a failed job's error output shown in the error.
const TAIL_LINES: usize = 5;

/// Runs the jobs `todo` of `plan` on `workers` processes at once. Every
/// job runs even when one fails (its results then wait for a re-run);
/// the error names each failed job and the end of what it printed.
pub fn run(
    plan: &Plan,
    todo: &[usize],
    workers: usize,
    program: &Path,
    on_event: &(dyn Fn(Event) + Sync),
) -> Result<()> {
    if workers == 0 {
        return Err(Error::InvalidSpec(
            "jobs = 0: give at least 1 worker".into(),
        ));
    }
    let next = AtomicUsize::new(0);
    let done = AtomicUsize::new(0);
    let failed = Mutex::new(Vec::new());
    on_event(Event::Progress {
        done: 0,
        total: todo.len(),
    });
    std::thread::scope(|s| {
        for _ in 0..workers.min(todo.len()) {
            s.spawn(|| loop {
                let k = next.fetch_add(1, Ordering::Relaxed);
                let Some(&i) = todo.get(k) else { break };
                if let Err(why) = run_one(plan, i, program) {
                    failed
                        .lock()
                        .unwrap_or_else(|e| e.into_inner())
                        .push((i, why));
                }
                let d = done.fetch_add(1, Ordering::Relaxed) + 1;
                on_event(Event::Progress {
                    done: d,
                    total: todo.len(),
                });
            });
        }
    });
    let mut failed = failed.into_inner().unwrap_or_else(|e| e.into_inner());
    if failed.is_empty() {
        return Ok(());
    }
    failed.sort_by_key(|f| f.0);
    Err(Error::Jobs(format!(
        "{} of {} jobs failed (the others' results are kept; run again to retry):\n{}",
        failed.len(),
        todo.len(),
        failed
            .iter()
            .map(|(i, why)| format!("job {i} ({}): {why}", plan.jobs[*i].what))
            .collect::<Vec<_>>()
            .join("\n")
    )))
}

/// Runs job `i` as `program job FILE`; the end of its error output when
/// it fails.
fn run_one(plan: &Plan, i: usize, program: &Path) -> std::result::Result<(), String> {
    let out = Command::new(program)
        .arg("job")
        .arg(plan.job_file(i))
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .output()
        .map_err(|e| format!("cannot run {}: {e}", program.display()))?;
    if out.status.success() && plan.done(i) {
        return Ok(());
    }
    let err = String::from_utf8_lossy(&out.stderr);
    let lines: Vec<&str> = err.lines().collect();
    let tail = lines[lines.len().saturating_sub(TAIL_LINES)..].join("\n");
    Err(format!("{} ({})", tail.trim(), out.status))
}
