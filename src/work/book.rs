//! How library code asks for work that may run as jobs: each simulation
//! run and synthesis goes through a [`Book`], which either does it now
//! ([`Book::direct`]), writes it down and answers with a stand-in
//! ([`Book::plan`]: the run that lists the jobs), answers it from the
//! jobs' results ([`Book::replay`]: the collect step), with the
//! simulations answered by runs as a study's points.csv records them
//! ([`Book::recorded`]: the page is made from those, whether they were
//! just run or read from the file). The code that asks
//! is the one place that knows what work it needs; it must ask for the
//! same tasks whatever the answers (a sweep asks for every load, then
//! cuts at saturation).

use std::cell::RefCell;
use std::collections::HashMap;

use super::{Output, Point, Task};
use crate::error::{Error, Result};
use crate::sim::stats::Run;
use crate::spec::RouterSpec;
use crate::synth::Target;

enum Mode<'a> {
    Direct(&'a dyn Fn(&str)),
    Plan(RefCell<Vec<(String, Task)>>),
    Replay(HashMap<String, Output>),
}

/// Runs measured before: a simulation's result, `None` where it did not
/// drain.
pub type Recorded<'a> = &'a dyn Fn(&Point) -> Result<Option<Run>>;

/// Where the work a study asks for is done (module docs).
pub struct Book<'a> {
    mode: Mode<'a>,
    /// Answers every simulation where set.
    recorded: Option<Recorded<'a>>,
}

impl<'a> Book<'a> {
    /// Work done at once, in this process; `progress` is told each piece.
    pub fn direct(progress: &'a dyn Fn(&str)) -> Book<'a> {
        Book {
            mode: Mode::Direct(progress),
            recorded: None,
        }
    }

    /// Work written down as tasks ([`Book::tasks`]), answered with
    /// stand-ins: a run with default (empty, incomplete) statistics, a
    /// synthesis without a report.
    pub fn plan() -> Book<'static> {
        Book {
            mode: Mode::Plan(RefCell::new(Vec::new())),
            recorded: None,
        }
    }

    /// Work answered from `results` (each task and its output); a task
    /// without one is an error.
    pub fn replay(results: Vec<(Task, Output)>) -> Result<Book<'static>> {
        let mut map = HashMap::new();
        for (t, o) in results {
            map.insert(t.key()?, o);
        }
        Ok(Book {
            mode: Mode::Replay(map),
            recorded: None,
        })
    }

    /// Every simulation answered by `runs`, the other work from `results`
    /// as [`Book::replay`]: nothing runs.
    pub fn recorded(runs: Recorded<'a>, results: Vec<(Task, Output)>) -> Result<Book<'a>> {
        Ok(Book {
            recorded: Some(runs),
            ..Book::replay(results)?
        })
    }

    /// The tasks asked for so far, each once, in the order first asked,
    /// with what each is; empty unless planning.
    pub fn tasks(self) -> Vec<(String, Task)> {
        match self.mode {
            Mode::Plan(t) => t.into_inner(),
            _ => Vec::new(),
        }
    }

    /// Whether this book only writes the work down.
    pub fn planning(&self) -> bool {
        matches!(self.mode, Mode::Plan(_))
    }

    fn ask(&self, what: &dyn Fn() -> String, task: Task, stand_in: Output) -> Result<Output> {
        match &self.mode {
            Mode::Direct(progress) => {
                progress(&what());
                task.run()
            }
            Mode::Plan(tasks) => {
                let mut tasks = tasks.borrow_mut();
                if !tasks.iter().any(|(_, t)| *t == task) {
                    tasks.push((what(), task));
                }
                Ok(stand_in)
            }
            Mode::Replay(results) => results.get(&task.key()?).cloned().ok_or_else(|| {
                Error::Jobs(format!(
                    "no result for {}: the plan does not hold this job (planned with other \
                     parameters?)",
                    what()
                ))
            }),
        }
    }

    /// One simulation run: what it measured, or `None` when the network
    /// did not drain (past saturation). `what` names it for people.
    pub fn simulate(&self, what: &dyn Fn() -> String, point: Point) -> Result<Option<Run>> {
        if let Some(runs) = self.recorded {
            return runs(&point);
        }
        match self.ask(
            what,
            Task::Simulate(point),
            Output::Simulated {
                stats: Some(Default::default()),
            },
        )? {
            Output::Simulated { stats } => Ok(stats.as_ref().map(Run::of)),
            other => Err(mismatch(&other)),
        }
    }

    /// The `routergen synth --json` report of `spec` on `target`, or why
    /// there is none.
    pub fn synthesize(
        &self,
        what: &dyn Fn() -> String,
        spec: &RouterSpec,
        target: Target,
    ) -> Result<std::result::Result<String, String>> {
        let task = Task::Synthesize {
            spec: super::spec_input(spec)?,
            target,
        };
        match self.ask(
            what,
            task,
            Output::Synthesized {
                report: Err("planned".into()),
            },
        )? {
            Output::Synthesized { report } => Ok(report),
            other => Err(mismatch(&other)),
        }
    }
}

fn mismatch(o: &Output) -> Error {
    Error::Internal(format!("a job's result is of another kind: {o:?}"))
}
