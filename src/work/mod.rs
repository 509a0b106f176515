//! The work routergen plans as jobs ([`crate::jobs`]): a simulation run,
//! the synthesis of a router on an FPGA, a generated router through its
//! own checks (`routergen matrix`), a proof or a mutant that must fail it
//! (`routergen prove --all`). Each is a [`Task`]; a job runs it as
//! `routergen task JSON`, which prints its [`Output`] as JSON, so the job
//! layer only sees a command line and the text it printed.

pub mod book;
pub mod check;

use serde::{Deserialize, Serialize};

pub use book::Book;

use crate::error::{Error, Result};
use crate::jobs::Work;
use crate::sim::stats::Stats;
use crate::sim::traffic::{Injection, Length, Pattern};
use crate::sim::{EngineKind, SimConfig};
use crate::spec::{RouterSpec, SpecInput};
use crate::synth::Target;

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
    /// A router's output directory through its own checks ([`check`]).
    Check {
        /// The router, every field set.
        spec: SpecInput,
    },
    /// A proof of `routergen prove --all`, or one of its mutants
    /// ([`crate::prove::suite`]).
    Prove {
        /// The check's name in the suite.
        check: String,
        /// The mutant (its place in the check's list), or the proof itself.
        mutant: Option<usize>,
        /// Where its work directory is kept, or `None`: a scratch one.
        dir: Option<std::path::PathBuf>,
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
    /// Each check of the output directory in order ([`check::STEPS`]),
    /// passed or not, and the end of what the failed ones printed.
    Checked {
        /// Each step and whether it passed.
        steps: Vec<(String, bool)>,
        /// The end of the failed steps' output.
        log: String,
    },
    /// Whether the proof held (for a mutant: it must not).
    Proved {
        /// Every assertion holds.
        proved: bool,
        /// A failed proof's counterexample trace was written.
        trace: bool,
    },
}

impl Task {
    /// Does the work. A simulation fault or a missing tool is an error
    /// (the job fails); a network that does not drain, a synthesis or a
    /// check that fails and a proof that does not hold are results.
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
            Task::Check { spec } => check::run(&spec.clone().resolve()?.spec),
            Task::Prove { check, mutant, dir } => {
                let v = crate::prove::suite::run(check, *mutant, dir.as_deref())?;
                Ok(Output::Proved {
                    proved: v.proved,
                    trace: v.trace.is_some(),
                })
            }
        }
    }

    /// The task as a job: `routergen task JSON`, sharing the simulation
    /// model of its router and engine with the other runs of it (the
    /// netlist and Verilator engines build it into their cache once).
    pub fn work(&self, what: String) -> Result<Work> {
        let share = match self {
            Task::Simulate(p) if p.engine != EngineKind::Rust => Some(format!(
                "{} model of {}",
                p.engine,
                serde_json::to_string(&p.spec)
                    .map_err(|e| Error::Internal(format!("a spec does not serialize: {e}")))?
            )),
            _ => None,
        };
        Ok(Work {
            what,
            args: vec!["task".into(), self.key()?],
            share,
        })
    }

    /// The task as the plan and the results spell it (the key results are
    /// matched by).
    pub fn key(&self) -> Result<String> {
        serde_json::to_string(self)
            .map_err(|e| Error::Internal(format!("a job does not serialize: {e}")))
    }
}

impl Output {
    /// The output as `routergen task` prints it.
    pub fn to_text(&self) -> Result<String> {
        serde_json::to_string(self)
            .map(|s| s + "\n")
            .map_err(|e| Error::Internal(format!("a job's result does not serialize: {e}")))
    }

    /// The output `routergen task` printed.
    pub fn parse(text: &str) -> Result<Output> {
        serde_json::from_str(text).map_err(|e| {
            Error::Jobs(format!(
                "a job printed what is not a task's result ({e}): {:?}",
                text.chars().take(80).collect::<String>()
            ))
        })
    }
}

/// Runs `tasks` (what each is, and the task) as the jobs of a plan with
/// `run` (which plans, executes and reads back the outputs in order), and
/// returns their outputs in the same order.
pub fn run_all(
    tasks: &[(String, Task)],
    run: impl FnOnce(Vec<Work>) -> Result<Vec<String>>,
) -> Result<Vec<Output>> {
    let work = tasks
        .iter()
        .map(|(what, t)| t.work(what.clone()))
        .collect::<Result<Vec<_>>>()?;
    run(work)?.iter().map(|t| Output::parse(t)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::{Algorithm, Topology};

    fn point(load: f64, engine: EngineKind) -> Task {
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
        Task::Simulate(Point::new(&cfg, engine).unwrap())
    }

    #[test]
    fn a_point_round_trips_through_its_file_form() {
        let t = point(0.3, EngineKind::Rust);
        let back: Task = serde_json::from_str(&t.key().unwrap()).unwrap();
        assert_eq!(back, t);
        let Task::Simulate(p) = &back else {
            panic!("not a simulation: {back:?}")
        };
        let cfg = p.config().unwrap();
        assert_eq!(cfg.length.to_string(), "2..5");
        assert_eq!(cfg.pattern.to_string(), "transpose");
    }

    #[test]
    fn runs_of_one_cached_model_share_it_and_rust_runs_share_nothing() {
        let share = |t: Task| t.work("w".into()).unwrap().share;
        let a = share(point(0.1, EngineKind::Netlist));
        assert!(a.is_some());
        assert_eq!(a, share(point(0.5, EngineKind::Netlist)));
        assert_ne!(a, share(point(0.1, EngineKind::Verilator)));
        assert_eq!(share(point(0.1, EngineKind::Rust)), None);
        let w = point(0.1, EngineKind::Rust).work("w".into()).unwrap();
        assert_eq!(w.args[0], "task");
        let back: Task = serde_json::from_str(&w.args[1]).unwrap();
        assert_eq!(back, point(0.1, EngineKind::Rust));
    }

    #[test]
    fn an_output_round_trips_and_garbage_is_named() {
        let o = Output::Checked {
            steps: vec![("lint".into(), true), ("sim".into(), false)],
            log: "x".into(),
        };
        assert_eq!(Output::parse(&o.to_text().unwrap()).unwrap(), o);
        let e = Output::parse("hello").unwrap_err().to_string();
        assert!(
            e.contains("not a task's result") && e.contains("hello"),
            "{e}"
        );
    }
}
