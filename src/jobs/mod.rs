//! Work as independent jobs: a study or a load sweep planned as a list of
//! self-contained jobs written to a directory, each run on its own (`routergen
//! job FILE`, by [`local`] workers or [`slurm`] array tasks) and writing
//! its result atomically, then merged in the plan's order. Whichever
//! executor ran the jobs, and in whatever order they finished, the merged
//! output is the same bytes: it is computed from the result files alone,
//! read in the plan's order.
//!
//! A plan directory holds:
//!
//! - `manifest.json`: what the plan is for and its jobs, in order;
//! - `jobs/<i>.json`: job i ([`Job`]): what it computes ([`Task`]) and its
//!   result file;
//! - `results/<i>.json`: job i's result ([`Output`], with its task, so a
//!   result left by another plan is never taken for this one's);
//! - `slurm/`: the array script and the tasks' logs ([`slurm`]).
//!
//! [`Book`] is how library code asks for the work: run once recording the
//! tasks it asks for (the plan), and once more answering them from the
//! results (the collect step).

pub mod book;
pub mod local;
pub mod slurm;

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

pub use book::Book;

use crate::error::{Error, Result};
use crate::sim::stats::Stats;
use crate::sim::traffic::{Injection, Length, Pattern};
use crate::sim::{EngineKind, SimConfig};
use crate::spec::names::named_enum;
use crate::spec::{RouterSpec, SpecInput};
use crate::synth::Target;

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

/// What one job computes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum Task {
    /// One simulation run.
    Simulate(Point),
    /// The synthesis report of a router on an FPGA (`routergen synth --json`).
    Synthesize {
        /// The router, every field set.
        spec: SpecInput,
        /// The FPGA.
        target: Target,
    },
}

/// One simulation run, every parameter of [`SimConfig`] that decides its
/// result (not the engine's thread count, which does not).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Point {
    /// The router, every field set.
    pub spec: SpecInput,
    /// The engine that simulates it.
    pub engine: EngineKind,
    /// Where packets go.
    #[serde(with = "as_text")]
    pub pattern: Pattern,
    /// Packet lengths.
    #[serde(with = "as_text")]
    pub length: Length,
    /// When packets are created.
    pub injection: Injection,
    /// Offered load (fraction of the bisection rate).
    pub load: f64,
    /// Warm-up cycles.
    pub warmup: u64,
    /// Measured cycles.
    pub measure: u64,
    /// Most drain cycles.
    pub drain: u64,
    /// Traffic seed.
    pub seed: u64,
    /// Deadlock watchdog cycles.
    pub watchdog: u64,
    /// Cycle time in ns, if measured.
    pub cycle_ns: Option<f64>,
}

/// A value written as its `Display` text and read back with `FromStr`.
mod as_text {
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<T: std::fmt::Display, S: Serializer>(v: &T, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(v)
    }

    pub fn deserialize<'de, T, D>(d: D) -> Result<T, D::Error>
    where
        T: std::str::FromStr,
        T::Err: std::fmt::Display,
        D: Deserializer<'de>,
    {
        String::deserialize(d)?
            .parse()
            .map_err(serde::de::Error::custom)
    }
}

/// `spec` as an input with every field set, which resolves back to it.
pub fn spec_input(spec: &RouterSpec) -> Result<SpecInput> {
    serde_json::to_value(spec)
        .and_then(serde_json::from_value)
        .map_err(|e| Error::Internal(format!("a spec does not round-trip as input: {e}")))
}

impl Point {
    /// The job of the run `cfg` on `engine`.
    pub fn new(cfg: &SimConfig, engine: EngineKind) -> Result<Point> {
        Ok(Point {
            spec: spec_input(&cfg.spec)?,
            engine,
            pattern: cfg.pattern,
            length: cfg.length.clone(),
            injection: cfg.injection,
            load: cfg.load,
            warmup: cfg.warmup,
            measure: cfg.measure,
            drain: cfg.drain,
            seed: cfg.seed,
            watchdog: cfg.watchdog,
            cycle_ns: cfg.cycle_ns,
        })
    }

    /// The run's configuration.
    pub fn config(&self) -> Result<SimConfig> {
        let spec = self.spec.clone().resolve()?.spec;
        Ok(SimConfig {
            pattern: self.pattern,
            length: self.length.clone(),
            injection: self.injection,
            load: self.load,
            warmup: self.warmup,
            measure: self.measure,
            drain: self.drain,
            seed: self.seed,
            watchdog: self.watchdog,
            cycle_ns: self.cycle_ns,
            ..SimConfig::new(spec)
        })
    }
}

/// What a job computed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum Output {
    /// What the run measured; `None` when the network did not drain (past
    /// saturation).
    Simulated {
        /// The run's results.
        stats: Option<Stats>,
    },
    /// The `routergen synth --json` report, or why there is none.
    Synthesized {
        /// The report's JSON text, or the error.
        report: std::result::Result<String, String>,
    },
}

impl Task {
    /// Does the work. A simulation fault or a missing tool is an error
    /// (the job fails); a network that does not drain and a synthesis
    /// that fails are results.
    pub fn run(&self) -> Result<Output> {
        match self {
            Task::Simulate(p) => {
                let cfg = p.config()?;
                crate::router::supported(&cfg.spec)?;
                let mut e = crate::sim::build_engine(&cfg, p.engine)?;
                match crate::sim::run(&cfg, e.as_mut(), &crate::sim::Control::default()) {
                    Ok(r) => Ok(Output::Simulated {
                        stats: Some(r.stats),
                    }),
                    Err(e) if crate::sim::did_not_drain(&e) => {
                        Ok(Output::Simulated { stats: None })
                    }
                    Err(e) => Err(e),
                }
            }
            Task::Synthesize { spec, target } => {
                let spec = spec.clone().resolve()?.spec;
                let report = crate::synth::run(&spec, *target, None, None)
                    .map(|r| r.to_json())
                    .map_err(|e| e.to_string());
                Ok(Output::Synthesized { report })
            }
        }
    }

    /// The task as the plan and the results spell it (the key results are
    /// matched by).
    pub fn key(&self) -> Result<String> {
        serde_json::to_string(self)
            .map_err(|e| Error::Internal(format!("a job does not serialize: {e}")))
    }
}

/// One job of a plan, as its file holds it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Job {
    /// Its place in the plan, from 0.
    pub index: usize,
    /// What it is, for people: `lapses: figure 5, uniform, LA DET, load 0.2`.
    pub what: String,
    /// What it computes.
    pub task: Task,
    /// The file its result goes to.
    pub result: PathBuf,
}

/// A job's result file: its task, what it computed, and how long it
/// took (wall seconds; for planning a cluster's time, never part of the
/// merged output).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct Result_ {
    task: Task,
    output: Output,
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
    /// Writes the plan of `tasks` (what each is, and the task) into `dir`,
    /// created if missing. Results already there are kept: a result whose
    /// task is the job's counts as done ([`Plan::done`]), so a plan written
    /// again over an interrupted one resumes it.
    pub fn write(dir: &Path, title: &str, tasks: Vec<(String, Task)>) -> Result<Plan> {
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
        let jobs: Vec<Job> = tasks
            .into_iter()
            .enumerate()
            .map(|(index, (what, task))| Job {
                index,
                what,
                task,
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

    /// Job `i`'s output, if its result file holds the result of its task.
    pub fn output(&self, i: usize) -> Option<Output> {
        let job = self.jobs.get(i)?;
        let text = std::fs::read_to_string(&job.result).ok()?;
        let r: Result_ = serde_json::from_str(&text).ok()?;
        (r.task == job.task).then_some(r.output)
    }

    /// Whether job `i` has its result.
    pub fn done(&self, i: usize) -> bool {
        self.output(i).is_some()
    }

    /// The jobs without their result, in order.
    pub fn pending(&self) -> Vec<usize> {
        (0..self.jobs.len()).filter(|&i| !self.done(i)).collect()
    }

    /// Every job's task and output, in the plan's order; a job without
    /// its result is an error naming it.
    pub fn outputs(&self) -> Result<Vec<(Task, Output)>> {
        self.jobs
            .iter()
            .map(|j| {
                let out = self.output(j.index).ok_or_else(|| {
                    Error::Jobs(format!(
                        "job {} ({}) has no result in {}",
                        j.index,
                        j.what,
                        j.result.display()
                    ))
                })?;
                Ok((j.task.clone(), out))
            })
            .collect()
    }
}

/// Runs the job in `file` and writes its result atomically (a temporary
/// file renamed over the result: a reader never sees half of one).
pub fn run_job(file: &Path) -> Result<Job> {
    let text = std::fs::read_to_string(file).map_err(|source| Error::Read {
        path: file.to_path_buf(),
        source,
    })?;
    let job: Job = serde_json::from_str(&text).map_err(|e| {
        Error::InvalidSpec(format!(
            "{} is not a job file (a plan's jobs/<i>.json): {e}",
            file.display()
        ))
    })?;
    let started = std::time::Instant::now();
    let output = job.task.run()?;
    let result = Result_ {
        task: job.task.clone(),
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
    use crate::spec::{Algorithm, Topology};

    fn point(load: f64) -> Task {
        let spec = SpecInput {
            topology: Some(Topology::Mesh),
            dims: Some(2),
            radix: Some(2),
            algorithm: Some(Algorithm::DimensionOrder),
            flit_width: Some(32),
            ..SpecInput::default()
        }
        .resolve()
        .unwrap()
        .spec;
        let cfg = SimConfig {
            load,
            warmup: 10,
            measure: 50,
            pattern: "transpose".parse().unwrap(),
            length: "2..5".parse().unwrap(),
            ..SimConfig::new(spec)
        };
        Task::Simulate(Point::new(&cfg, EngineKind::Rust).unwrap())
    }

    #[test]
    fn a_point_round_trips_through_its_file_form() {
        let t = point(0.3);
        let back: Task = serde_json::from_str(&t.key().unwrap()).unwrap();
        assert_eq!(back, t);
        let Task::Simulate(p) = &back else { panic!() };
        let cfg = p.config().unwrap();
        assert_eq!(cfg.length.to_string(), "2..5");
        assert_eq!(cfg.pattern.to_string(), "transpose");
    }

    #[test]
    fn a_result_counts_only_for_its_own_task() {
        let dir = tempfile::tempdir().unwrap();
        let plan = Plan::write(
            dir.path(),
            "t",
            vec![("a".into(), point(0.1)), ("b".into(), point(0.2))],
        )
        .unwrap();
        assert_eq!(plan.pending(), [0, 1]);
        let job = run_job(&plan.job_file(1)).unwrap();
        assert_eq!(job.index, 1);
        assert_eq!(plan.pending(), [0]);
        assert!(plan
            .outputs()
            .unwrap_err()
            .to_string()
            .contains("job 0 (a)"));
        // The same directory planned with other tasks: the old result of
        // index 1 is not taken for the new job 1, and the file list is
        // rewritten (no job 2 left behind).
        let again = Plan::write(dir.path(), "t", vec![("c".into(), point(0.4))]).unwrap();
        assert_eq!(again.pending(), [0]);
        assert!(!again.job_file(1).exists());
        let read = Plan::read(dir.path()).unwrap();
        assert_eq!(read.jobs, again.jobs);
    }

    #[test]
    fn a_bad_job_file_is_refused_by_name() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("x.json");
        std::fs::write(&f, "{\"nope\": 1}").unwrap();
        let e = run_job(&f).unwrap_err();
        assert_eq!(e.exit_code(), 2);
        assert!(e.to_string().contains("x.json is not a job file"), "{e}");
    }
}
