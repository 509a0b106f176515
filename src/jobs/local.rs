//! The local executor: a pool of worker threads on this machine, each
//! running one job at a time as its own `routergen job FILE` process (the
//! same command a Slurm task runs, so both executors do the same work the
//! same way).

use std::collections::HashSet;
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::{Condvar, Mutex};

use super::{Event, Plan};
use crate::error::{Error, Result};

/// The last lines of a failed job's error output shown in the error.
const TAIL_LINES: usize = 5;

/// The jobs not started yet and which shared things are being built.
struct Queue {
    /// Not started, in the plan's order.
    waiting: Vec<usize>,
    /// Shares ([`super::Job::share`]) whose first job is running.
    building: HashSet<String>,
    /// Shares a job has ended with (built, or tried).
    built: HashSet<String>,
    done: usize,
}

impl Queue {
    /// The first waiting job that builds nothing another worker is
    /// building, taken off the queue; `None` when every waiting job
    /// waits for such a build.
    /// Also whether the job is the first of its share (it builds it).
    fn take(&mut self, plan: &Plan) -> Option<(usize, bool)> {
        let k = self.waiting.iter().position(|&i| {
            plan.jobs[i]
                .share
                .as_ref()
                .map_or(true, |s| !self.building.contains(s))
        })?;
        let i = self.waiting.remove(k);
        let mut builds = false;
        if let Some(s) = &plan.jobs[i].share {
            if !self.built.contains(s) {
                self.building.insert(s.clone());
                builds = true;
            }
        }
        Some((i, builds))
    }
}

/// Runs the jobs `todo` of `plan` on `workers` processes at once, in the
/// plan's order except that a job whose share is being built by another
/// worker's job waits for it (the workers take other jobs meanwhile).
/// Every job runs even when one fails (its results then wait for a
/// re-run); the error names each failed job and the end of what it
/// printed.
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
    // Shares with a result already are built (a resumed plan).
    let built = (0..plan.jobs.len())
        .filter(|i| !todo.contains(i))
        .filter_map(|i| plan.jobs[i].share.clone())
        .collect();
    let queue = Mutex::new(Queue {
        waiting: todo.to_vec(),
        building: HashSet::new(),
        built,
        done: 0,
    });
    let changed = Condvar::new();
    let failed = Mutex::new(Vec::new());
    let lock = || queue.lock().unwrap_or_else(|e| e.into_inner());
    on_event(Event::Progress {
        done: 0,
        total: todo.len(),
        last: None,
    });
    std::thread::scope(|s| {
        for _ in 0..workers.min(todo.len()) {
            s.spawn(|| loop {
                let mut q = lock();
                let i = loop {
                    if q.waiting.is_empty() {
                        return;
                    }
                    if let Some(i) = q.take(plan) {
                        break i;
                    }
                    q = changed.wait(q).unwrap_or_else(|e| e.into_inner());
                };
                drop(q);
                let (i, builds) = i;
                if let Some(share) = plan.jobs[i].share.as_ref().filter(|_| builds) {
                    // The share names the model and its router: the first
                    // words say which model.
                    let model = share.split(" of ").next().unwrap_or(share);
                    on_event(Event::Note(format!(
                        "job {i} ({}) builds the {model} the jobs of its router share, or reads \
                         it from the cache; the others wait for it",
                        plan.jobs[i].what
                    )));
                }
                let outcome = run_one(plan, i, program);
                let mut q = lock();
                if let Some(s) = &plan.jobs[i].share {
                    q.building.remove(s);
                    q.built.insert(s.clone());
                }
                q.done += 1;
                let done = q.done;
                drop(q);
                changed.notify_all();
                if let Err(why) = outcome {
                    failed
                        .lock()
                        .unwrap_or_else(|e| e.into_inner())
                        .push((i, why));
                }
                on_event(Event::Progress {
                    done,
                    total: todo.len(),
                    last: Some(plan.jobs[i].what.clone()),
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::jobs::Work;

    fn work(share: Option<&str>) -> Work {
        Work {
            what: "w".into(),
            args: vec![],
            share: share.map(String::from),
        }
    }

    #[test]
    fn a_job_waits_while_another_builds_its_share_and_not_after() {
        let dir = tempfile::tempdir().unwrap();
        let plan = Plan::write(
            dir.path(),
            "t",
            vec![
                work(Some("a")),
                work(Some("a")),
                work(Some("b")),
                work(None),
                work(Some("a")),
            ],
        )
        .unwrap();
        let mut q = Queue {
            waiting: vec![0, 1, 2, 3, 4],
            building: HashSet::new(),
            built: HashSet::new(),
            done: 0,
        };
        // Job 0 builds a: jobs 1 and 4 wait, 2 (b) and 3 (nothing) run;
        // 0 and 2 are the first of their shares (they build).
        assert_eq!(q.take(&plan), Some((0, true)));
        assert_eq!(q.take(&plan), Some((2, true)));
        assert_eq!(q.take(&plan), Some((3, false)));
        assert_eq!(q.take(&plan), None);
        // Once a is built, its other jobs run side by side, building
        // nothing.
        q.building.remove("a");
        q.built.insert("a".into());
        assert_eq!(q.take(&plan), Some((1, false)));
        assert_eq!(q.take(&plan), Some((4, false)));
        assert!(q.waiting.is_empty());
    }
}
