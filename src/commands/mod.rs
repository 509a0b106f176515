//! The body of each `routergen` command, one module per command. Each takes
//! the arguments [`crate::cli`] parsed, does the work through the library,
//! prints what the command prints, and returns how it ended; the binary
//! only parses, calls [`run`], adds the flags to the error
//! ([`flags::name_flags`]), prints it and exits with
//! [`Outcome::exit_code`] or [`crate::Error::exit_code`].
//!
//! These modules are the command-line layer: their messages name the flags,
//! while the library below them speaks of parameters (`dims = 40 is out of
//! range`); [`flags`] tells which flag sets each.

pub mod analyze;
pub mod bench;
pub mod block;
pub mod check;
pub mod completions;
pub mod flags;
pub mod fpga;
pub mod generate;
pub mod job;
pub mod matrix;
pub mod model;
pub mod network;
pub mod prove;
pub mod sim;
pub mod study;
pub mod synth;
pub mod task;

use std::path::Path;

use crate::cli::{Cli, Command, SpecArgs};
use crate::error::{Error, Result};
use crate::model::Technology;
use crate::spec::{Resolved, SpecInput};

/// How a command that ran to its end finished, as an exit status.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// Done, and every check passed: status 0.
    Success,
    /// Done, and what the command checks does not hold (`check`: the
    /// relation is not proved): status 1.
    Failed,
    /// Stopped by Ctrl-C (`sim`): the printed results are partial; status
    /// 130, the shell's 128 + SIGINT.
    Interrupted,
}

impl Outcome {
    /// The exit status of the `routergen` binary for this outcome.
    pub fn exit_code(self) -> u8 {
        match self {
            Outcome::Success => 0,
            Outcome::Failed => 1,
            Outcome::Interrupted => 130,
        }
    }
}

/// Runs the command `cli` names (without a subcommand: generation).
pub fn run(cli: &Cli) -> Result<Outcome> {
    match &cli.command {
        Some(Command::Model(args)) => model::run(args),
        Some(Command::Block(args)) => block::run(args),
        Some(Command::Check(args)) => check::run(args),
        Some(Command::Synth(args)) => synth::run(args),
        Some(Command::Fpga(args)) => fpga::run(args),
        Some(Command::Network(args)) => network::run(args),
        Some(Command::Sim(args)) => sim::run(args),
        Some(Command::Bench(args)) => bench::run(args),
        Some(Command::Analyze(args)) => analyze::run(args),
        Some(Command::Study(args)) => study::run(args),
        Some(Command::Prove(args)) => prove::run(args),
        Some(Command::Matrix(args)) => matrix::run(args),
        Some(Command::Job(args)) => job::run(args),
        Some(Command::Task(args)) => task::run(args),
        Some(Command::Completions(args)) => completions::run(args),
        Some(Command::Man(args)) => completions::man(args),
        None => generate::run(cli),
    }
}

/// The technology file at `path`, or Chien's 0.8 um constants.
fn load_tech(path: Option<&Path>) -> Result<Technology> {
    match path {
        Some(p) => Technology::from_file(p),
        None => Ok(Technology::chien()),
    }
}

/// The spec of `--config` and the flags, over `base` (defaults of the command).
fn resolve_spec(args: &SpecArgs, base: SpecInput) -> Result<Resolved> {
    let file = match &args.config {
        Some(path) => SpecInput::from_file(path)?,
        None => SpecInput::default(),
    };
    base.overlay(file).overlay(args.input.clone()).resolve()
}

/// Writes `text` to `path`, naming the file on failure.
fn write_file(path: &Path, text: &str) -> Result<()> {
    std::fs::write(path, text).map_err(|e| Error::Output {
        path: path.to_path_buf(),
        message: e.to_string(),
    })
}

/// `value` as pretty JSON; a value that does not serialize is a bug.
fn to_json<T: serde::Serialize>(value: &T) -> Result<String> {
    serde_json::to_string_pretty(value)
        .map_err(|e| Error::Internal(format!("a report does not serialize to JSON: {e}")))
}

#[cfg(test)]
mod tests {
    use super::Outcome;

    #[test]
    fn outcomes_map_to_their_documented_statuses() {
        assert_eq!(Outcome::Success.exit_code(), 0);
        assert_eq!(Outcome::Failed.exit_code(), 1);
        assert_eq!(Outcome::Interrupted.exit_code(), 130);
    }
}
