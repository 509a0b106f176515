//! Work as independent jobs: a list of self-contained jobs written to a
//! directory (a plan), each run on its own (`routergen job FILE`, by
//! [`local`] workers or [`slurm`] array tasks) and writing its result
//! atomically, then read back in the plan's order. Whichever executor ran
//! the jobs, and in whatever order they finished, what is read back is
//! the same: it is the result files alone, in the plan's order.
//!
//! A job is a routergen command line (its arguments, without the program)
//! whose standard output is its result. This layer runs commands and keeps
//! their outputs; what a command computes and what its output means is the
//! caller's ([`crate::work`]).
//!
//! A plan directory holds:
//!
//! - `manifest.json`: what the plan is for and its jobs, in order;
//! - `jobs/<i>.json`: job i ([`Job`]): its command line and its result file;
//! - `results/<i>.json`: job i's result: its command line (so a result
//!   left by another plan is never taken for this one's), its output and
//!   its wall time;
//! - `slurm/`: the array script, the tasks' logs and their claims on
//!   jobs ([`slurm`], [`run_claiming`]).

pub mod local;
pub mod slurm;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::spec::names::named_enum;

/// The plan's list of jobs.
pub const MANIFEST: &str = "manifest.json";

named_enum!(
    /// Where the jobs of a plan run.
    ExecutorKind, "executor", {
        /// A pool of worker processes on this machine.
        Local => "local" [],
        /// One Slurm job array, a task per job.
        Slurm => "slurm" [],
    }
);

/// A job before it has a place in a plan.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Work {
    /// What it is, for people: `lapses: figure 5, uniform, LA DET, load 0.2`.
    pub what: String,
    /// The routergen command line that does it (without the program); its
    /// standard output is the result.
    pub args: Vec<String>,
    /// Jobs with the same value use something the first of them to run
    /// builds (a model in a cache): the local executor runs one such job
    /// before the others of its value, so that two workers never build the
    /// same thing at once.
    pub share: Option<String>,
}

/// One job of a plan, as its file holds it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Job {
    /// Its place in the plan, from 0.
    pub index: usize,
    /// What it is, for people.
    pub what: String,
    /// The routergen command line that does it ([`Work::args`]).
    pub args: Vec<String>,
    /// [`Work::share`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub share: Option<String>,
    /// The file its result goes to.
    pub result: PathBuf,
}

/// A job's result file: its command line, what it printed, and how long
/// it took (wall seconds; for planning a cluster's time, never part of
/// what is read back).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct Result_ {
    args: Vec<String>,
    output: String,
    #[serde(default)]
    seconds: f64,
}

#[derive(Serialize, Deserialize)]
struct Manifest {
    title: String,
    jobs: Vec<Job>,
}

/// A plan: its directory (absolute) and jobs, in order.
#[derive(Debug, Clone)]
pub struct Plan {
    /// The plan's directory.
    pub dir: PathBuf,
    /// What it computes, for people.
    pub title: String,
    /// Its jobs in order.
    pub jobs: Vec<Job>,
}

fn output_error(path: &Path, e: impl std::fmt::Display) -> Error {
    Error::Output {
        path: path.to_path_buf(),
        message: e.to_string(),
    }
}

fn to_json<T: Serialize>(v: &T) -> Result<String> {
    serde_json::to_string_pretty(v)
        .map(|s| s + "\n")
        .map_err(|e| Error::Internal(format!("a job does not serialize: {e}")))
}

impl Plan {
    /// Writes the plan of `work` into `dir`, created if missing. Results
    /// already there are kept: a result whose command line is the job's
    /// counts as done ([`Plan::done`]), so a plan written again over an
    /// interrupted one resumes it.
    pub fn write(dir: &Path, title: &str, work: Vec<Work>) -> Result<Plan> {
        if dir.exists() && !dir.is_dir() {
            return Err(Error::InvalidSpec(format!(
                "plan = {} is not a directory: give a directory for the jobs and their results",
                dir.display()
            )));
        }
        for sub in ["jobs", "results"] {
            std::fs::create_dir_all(dir.join(sub)).map_err(|e| output_error(&dir.join(sub), e))?;
        }
        let dir = dir.canonicalize().map_err(|e| output_error(dir, e))?;
        // Job files of an earlier, longer plan would be run by an array
        // task of that index; the current plan rewrites them all.
        let old = dir.join("jobs");
        for entry in std::fs::read_dir(&old).map_err(|e| output_error(&old, e))? {
            let p = entry.map_err(|e| output_error(&old, e))?.path();
            std::fs::remove_file(&p).map_err(|e| output_error(&p, e))?;
        }
        let jobs: Vec<Job> = work
            .into_iter()
            .enumerate()
            .map(|(index, w)| Job {
                index,
                what: w.what,
                args: w.args,
                share: w.share,
                result: dir.join("results").join(format!("{index}.json")),
            })
            .collect();
        let plan = Plan {
            dir,
            title: title.to_string(),
            jobs,
        };
        for job in &plan.jobs {
            crate::atomic::write(&plan.job_file(job.index), to_json(job)?.as_bytes())?;
        }
        let manifest = Manifest {
            title: plan.title.clone(),
            jobs: plan.jobs.clone(),
        };
        crate::atomic::write(&plan.dir.join(MANIFEST), to_json(&manifest)?.as_bytes())?;
        Ok(plan)
    }

    /// The plan in `dir`, as its manifest lists it.
    pub fn read(dir: &Path) -> Result<Plan> {
        let path = dir.join(MANIFEST);
        let text = std::fs::read_to_string(&path).map_err(|source| Error::Read {
            path: path.clone(),
            source,
        })?;
        let m: Manifest = serde_json::from_str(&text).map_err(|e| {
            Error::InvalidSpec(format!("{} is not a plan's manifest: {e}", path.display()))
        })?;
        Ok(Plan {
            dir: dir.to_path_buf(),
            title: m.title,
            jobs: m.jobs,
        })
    }

    /// The file of job `i`.
    pub fn job_file(&self, i: usize) -> PathBuf {
        self.dir.join("jobs").join(format!("{i}.json"))
    }

    /// Job `i`'s output, if its result file holds the result of its
    /// command line.
    pub fn output(&self, i: usize) -> Option<String> {
        let job = self.jobs.get(i)?;
        let text = std::fs::read_to_string(&job.result).ok()?;
        let r: Result_ = serde_json::from_str(&text).ok()?;
        (r.args == job.args).then_some(r.output)
    }

    /// Whether job `i` has its result.
    pub fn done(&self, i: usize) -> bool {
        self.output(i).is_some()
    }

    /// The jobs without their result, in order.
    pub fn pending(&self) -> Vec<usize> {
        (0..self.jobs.len()).filter(|&i| !self.done(i)).collect()
    }

    /// Every job's output, in the plan's order; a job without its result
    /// is an error naming it.
    pub fn outputs(&self) -> Result<Vec<String>> {
        self.jobs
            .iter()
            .map(|j| {
                self.output(j.index).ok_or_else(|| {
                    Error::Jobs(format!(
                        "job {} ({}) has no result in {}",
                        j.index,
                        j.what,
                        j.result.display()
                    ))
                })
            })
            .collect()
    }
}

/// The job in `file` (a plan's `jobs/<i>.json`).
pub fn read_job(file: &Path) -> Result<Job> {
    let text = std::fs::read_to_string(file).map_err(|source| Error::Read {
        path: file.to_path_buf(),
        source,
    })?;
    serde_json::from_str(&text).map_err(|e| {
        Error::InvalidSpec(format!(
            "{} is not a job file (a plan's jobs/<i>.json): {e}",
            file.display()
        ))
    })
}

/// Claims job `i` for `owner` by creating `claims/<i>` (holding `owner`);
/// false if another process created it first.
fn claim(claims: &Path, i: usize, owner: &str) -> Result<bool> {
    let path = claims.join(i.to_string());
    match std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&path)
    {
        Ok(mut f) => {
            use std::io::Write as _;
            f.write_all(owner.as_bytes())
                .map_err(|e| output_error(&path, e))?;
            Ok(true)
        }
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Ok(false),
        Err(e) => Err(output_error(&path, e)),
    }
}

/// Who claimed job `i` in `claims` ([`run_claiming`]'s `owner`), if anyone.
pub fn claimed_by(claims: &Path, i: usize) -> Option<String> {
    std::fs::read_to_string(claims.join(i.to_string())).ok()
}

/// Runs job `first` of `plan`, then each other job without a result in
/// the plan's order, every one claimed first in the directory `claims`
/// ([`claim`]; a job another process claimed is left to it), until none
/// is left; returns the jobs it ran. Processes sharing `claims` (the
/// tasks of one Slurm array) so run every job once between them, and each
/// keeps its processor busy instead of ending after one job (a Slurm task
/// costs about a second to start, docs/cluster.md). A failed job leaves no
/// result and no other job undone: the error, once every job is claimed,
/// names it.
pub fn run_claiming(
    plan: &Plan,
    first: usize,
    claims: &Path,
    owner: &str,
    program: &Path,
) -> Result<Vec<usize>> {
    std::fs::create_dir_all(claims).map_err(|e| output_error(claims, e))?;
    let order = std::iter::once(first).chain(plan.pending().into_iter().filter(|&i| i != first));
    let (mut ran, mut failed) = (Vec::new(), Vec::new());
    for i in order {
        if i >= plan.jobs.len() || plan.done(i) || !claim(claims, i, owner)? {
            continue;
        }
        match run_job(&plan.job_file(i), program) {
            Ok(_) => ran.push(i),
            Err(e) => {
                eprintln!("routergen: {e}");
                failed.push(e.to_string());
            }
        }
    }
    if failed.is_empty() {
        Ok(ran)
    } else {
        Err(Error::Jobs(failed.join("\n")))
    }
}

/// Runs the job in `file`, its command line given to `program` (routergen
/// itself), and writes what the command printed as the job's result,
/// atomically (a temporary file renamed over the result: a reader never
/// sees half of one). The command's error output passes through; a
/// command that fails leaves no result.
pub fn run_job(file: &Path, program: &Path) -> Result<Job> {
    let job = read_job(file)?;
    let command = format!("routergen {}", job.args.first().map_or("", String::as_str));
    let started = std::time::Instant::now();
    let out = Command::new(program)
        .args(&job.args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .output()
        .map_err(|e| Error::Jobs(format!("cannot run {}: {e}", program.display())))?;
    if !out.status.success() {
        return Err(Error::Jobs(format!(
            "job {} ({}): {command} failed ({})",
            job.index, job.what, out.status
        )));
    }
    let output = String::from_utf8(out.stdout).map_err(|e| {
        Error::Jobs(format!(
            "job {} ({}): {command} printed what is not UTF-8: {e}",
            job.index, job.what
        ))
    })?;
    let result = Result_ {
        args: job.args.clone(),
        output,
        seconds: started.elapsed().as_secs_f64(),
    };
    crate::atomic::write(&job.result, to_json(&result)?.as_bytes())?;
    Ok(job)
}

/// How far a plan's execution is, for the progress line.
#[derive(Debug, Clone, PartialEq)]
pub enum Event {
    /// `done` of `total` jobs of this run have their results.
    Progress {
        /// Jobs done.
        done: usize,
        /// Jobs this run runs.
        total: usize,
        /// What the job that has just ended was, where the executor knows.
        last: Option<String>,
    },
    /// Something worth a line: a job failed and is run again, an array
    /// was submitted.
    Note(String),
}

/// Where and how the jobs run.
#[derive(Debug, Clone)]
pub enum Executor {
    /// Worker processes on this machine.
    Local {
        /// How many at once.
        workers: usize,
    },
    /// A Slurm job array.
    Slurm(slurm::Options),
}

/// Runs the jobs of `plan` without a result on `executor`, each as
/// `program job FILE` (`program` is routergen itself). Returns how many
/// ran (jobs with results are skipped: a re-run resumes).
pub fn execute(
    plan: &Plan,
    executor: &Executor,
    program: &Path,
    on_event: &(dyn Fn(Event) + Sync),
) -> Result<usize> {
    let todo = plan.pending();
    if todo.is_empty() {
        return Ok(0);
    }
    match executor {
        Executor::Local { workers } => local::run(plan, &todo, *workers, program, on_event)?,
        Executor::Slurm(opts) => slurm::run(plan, &todo, opts, program, on_event)?,
    }
    Ok(todo.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A job whose command is `sh -c SCRIPT` (the tests run `/bin/sh` as
    /// the program, its arguments `-c SCRIPT`).
    fn shell(what: &str, script: &str) -> Work {
        Work {
            what: what.into(),
            args: vec!["-c".into(), script.into()],
            share: None,
        }
    }

    #[test]
    fn a_result_counts_only_for_its_own_command_line() {
        let dir = tempfile::tempdir().unwrap();
        let sh = Path::new("/bin/sh");
        let plan = Plan::write(
            dir.path(),
            "t",
            vec![shell("a", "echo one"), shell("b", "printf 'two\\n2'")],
        )
        .unwrap();
        assert_eq!(plan.pending(), [0, 1]);
        let job = run_job(&plan.job_file(1), sh).unwrap();
        assert_eq!(job.index, 1);
        assert_eq!(plan.pending(), [0]);
        assert_eq!(plan.output(1).as_deref(), Some("two\n2"));
        assert!(plan
            .outputs()
            .unwrap_err()
            .to_string()
            .contains("job 0 (a)"));
        // The same directory planned with other commands: the old result
        // of index 1 is not taken for the new job 1, and the file list is
        // rewritten (no job 2 left behind).
        let again = Plan::write(dir.path(), "t", vec![shell("c", "echo three")]).unwrap();
        assert_eq!(again.pending(), [0]);
        assert!(!again.job_file(1).exists());
        let read = Plan::read(dir.path()).unwrap();
        assert_eq!(read.jobs, again.jobs);
    }

    #[test]
    fn a_failed_command_leaves_no_result_and_names_its_job() {
        let dir = tempfile::tempdir().unwrap();
        let plan = Plan::write(dir.path(), "t", vec![shell("bad", "echo half; exit 3")]).unwrap();
        let e = run_job(&plan.job_file(0), Path::new("/bin/sh")).unwrap_err();
        let msg = e.to_string();
        assert!(
            msg.contains("job 0 (bad)") && msg.contains("exit status: 3"),
            "{msg}"
        );
        assert!(!plan.jobs[0].result.exists());
        assert_eq!(plan.pending(), [0]);
    }

    #[test]
    fn processes_claiming_from_one_plan_run_every_job_once() {
        let dir = tempfile::tempdir().unwrap();
        let log = dir.path().join("ran");
        let work: Vec<Work> = (0..12)
            .map(|i| {
                let script = format!("echo {i} >> {}; sleep 0.05; echo {i}", log.display());
                shell(&format!("j{i}"), &script)
            })
            .collect();
        let plan = Plan::write(&dir.path().join("plan"), "t", work).unwrap();
        // Job 5 is already done: nobody runs it again.
        run_job(&plan.job_file(5), Path::new("/bin/sh")).unwrap();
        let claims = plan.dir.join("claims");
        let ran: Vec<Vec<usize>> = std::thread::scope(|s| {
            let tasks: Vec<_> = [0, 1, 2]
                .into_iter()
                .map(|first| {
                    let (plan, claims) = (&plan, &claims);
                    s.spawn(move || {
                        run_claiming(
                            plan,
                            first,
                            claims,
                            &first.to_string(),
                            Path::new("/bin/sh"),
                        )
                        .unwrap()
                    })
                })
                .collect();
            tasks.into_iter().map(|t| t.join().unwrap()).collect()
        });
        // Every task took a share (each job sleeps, so none takes all).
        assert!(ran.iter().all(|r| !r.is_empty()), "{ran:?}");
        assert_eq!(ran.iter().map(Vec::len).sum::<usize>(), 11, "{ran:?}");
        let mut lines: Vec<usize> = std::fs::read_to_string(&log)
            .unwrap()
            .lines()
            .map(|l| l.parse().unwrap())
            .collect();
        lines.sort_unstable();
        assert_eq!(lines, (0..12).collect::<Vec<_>>(), "{ran:?}");
        assert!(plan.pending().is_empty());
        assert_eq!(claimed_by(&claims, 7).as_deref().map(str::len), Some(1));
        assert_eq!(claimed_by(&claims, 5), None);
    }

    #[test]
    fn a_failed_job_among_claimed_ones_is_named_and_the_others_run() {
        let dir = tempfile::tempdir().unwrap();
        let plan = Plan::write(
            dir.path(),
            "t",
            vec![
                shell("a", "echo 1"),
                shell("bad", "exit 4"),
                shell("c", "echo 3"),
            ],
        )
        .unwrap();
        let e = run_claiming(&plan, 0, &dir.path().join("c"), "0", Path::new("/bin/sh"))
            .unwrap_err()
            .to_string();
        assert!(e.contains("job 1 (bad)"), "{e}");
        assert_eq!(plan.pending(), [1]);
    }

    #[test]
    fn a_bad_job_file_is_refused_by_name() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("x.json");
        std::fs::write(&f, "{\"nope\": 1}").unwrap();
        let e = run_job(&f, Path::new("/bin/sh")).unwrap_err();
        assert_eq!(e.exit_code(), 2);
        assert!(e.to_string().contains("x.json is not a job file"), "{e}");
    }
}
