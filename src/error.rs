//! Typed errors and the exit codes the `routergen` binary maps them to.
//!
//! | status | meaning | kinds |
//! |---|---|---|
//! | 0 | success | |
//! | 1 | a failure while doing valid work: a file that cannot be written, an external tool missing or failing, a simulation fault, jobs that failed; also `check` when the relation is not proved and `sim` on a fault | [`Error::Output`], [`Error::Tool`], [`Error::Simulation`], [`Error::Jobs`] |
//! | 2 | bad input, like a usage error: a spec that does not hold together, a file that cannot be read or parsed | [`Error::InvalidSpec`], [`Error::Read`], [`Error::Toml`] |
//! | 3 | a bug in routergen: a built-in template that does not render, an internal invariant broken; the input was accepted and the fault is not the user's | [`Error::Template`], [`Error::Internal`] |
//! | 130 | `sim` interrupted by Ctrl-C (128 + SIGINT): the printed results are partial | |
//!
//! Command-line usage errors found by the argument parser also exit with 2.

use std::path::PathBuf;

/// Everything that can go wrong in routergen, by kind; [`Error::exit_code`]
/// gives the binary's exit status of each.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The specification is inconsistent: the message names the bad value,
    /// what is allowed, and why.
    #[error("{0}")]
    InvalidSpec(String),

    /// An input file (a spec, a technology file) cannot be read.
    #[error("cannot read {}: {source}", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// Why it cannot be read.
        source: std::io::Error,
    },

    /// An input file is not valid TOML, or not the TOML expected.
    #[error("{}:{line}:{column}: malformed TOML: {message}", path.display())]
    Toml {
        /// The file.
        path: PathBuf,
        /// 1-based line of the fault.
        line: usize,
        /// 1-based column of the fault.
        column: usize,
        /// What the parser says is wrong.
        message: String,
    },

    /// A file or directory cannot be written.
    #[error("cannot write {}: {message}", path.display())]
    Output {
        /// The file or directory.
        path: PathBuf,
        /// Why it cannot be written.
        message: String,
    },

    /// An external tool (Yosys, nextpnr, a bitstream packer, Verilator,
    /// Icarus Verilog) is missing, cannot run, or failed; for a missing
    /// one the message names its package and how to install it.
    #[error("{tool}: {message}")]
    Tool {
        /// The executable, e.g. `yosys`.
        tool: String,
        /// What went wrong: not found (and how to install it), or the tail
        /// of what the tool printed.
        message: String,
    },

    /// A network simulation found a fault: a lost, duplicated, misrouted
    /// or altered flit, or a deadlock (the message says where).
    #[error("{0}")]
    Simulation(String),

    /// Jobs of a plan ([`crate::jobs`]) failed or left no result: the
    /// message names them and where their output is.
    #[error("{0}")]
    Jobs(String),

    /// A template built into routergen did not render: a bug, since the
    /// templates and the values they are given do not depend on what the
    /// user may write.
    #[error("internal error (please report it): the {what} template does not render: {message}")]
    Template {
        /// Which template, e.g. `testbench`.
        what: String,
        /// The template engine's error, with its causes.
        message: String,
    },

    /// An invariant of routergen itself does not hold on an accepted
    /// input: a bug, never the user's fault.
    #[error("internal error (please report it): {0}")]
    Internal(String),
}

impl Error {
    /// The exit status of the `routergen` binary for this error (the table
    /// of the module docs): 1 for failures while doing valid work, 2 for
    /// bad input, 3 for bugs.
    pub fn exit_code(&self) -> i32 {
        match self {
            Error::InvalidSpec(_) | Error::Read { .. } | Error::Toml { .. } => 2,
            Error::Output { .. } | Error::Tool { .. } | Error::Simulation(_) | Error::Jobs(_) => 1,
            Error::Template { .. } | Error::Internal(_) => 3,
        }
    }

    pub(crate) fn invalid(msg: impl Into<String>) -> Self {
        Error::InvalidSpec(msg.into())
    }

    /// A template of routergen's (named by `what`) that did not render,
    /// with the chain of causes the template engine gives.
    pub fn template(what: &str, err: &tera::Error) -> Self {
        let mut message = err.to_string();
        let mut cause = std::error::Error::source(err);
        while let Some(c) = cause {
            message.push_str(": ");
            message.push_str(&c.to_string());
            cause = c.source();
        }
        Error::Template {
            what: what.to_string(),
            message,
        }
    }

    /// A TOML parse or type error in `path`, with the line and column of its span.
    pub(crate) fn toml(path: &std::path::Path, text: &str, err: &toml::de::Error) -> Self {
        let (line, column) = match err.span() {
            Some(span) => line_column(text, span.start),
            None => (1, 1),
        };
        Error::Toml {
            path: path.to_path_buf(),
            line,
            column,
            message: err.message().trim().replace('\n', "; "),
        }
    }
}

impl From<crate::flows::ToolError> for Error {
    fn from(e: crate::flows::ToolError) -> Self {
        Error::Tool {
            tool: e.tool,
            message: e.message,
        }
    }
}

/// 1-based line and column of byte `offset` in `text`.
fn line_column(text: &str, offset: usize) -> (usize, usize) {
    let before = &text[..offset.min(text.len())];
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    (line, column)
}

/// routergen's result type: [`Error`] on failure.
pub type Result<T> = std::result::Result<T, Error>;

#[cfg(test)]
mod tests {
    use super::{line_column, Error};

    #[test]
    fn line_and_column_are_one_based() {
        let text = "a = 1\nbb = x\n";
        assert_eq!(line_column(text, 0), (1, 1));
        assert_eq!(line_column(text, 6), (2, 1));
        assert_eq!(line_column(text, 11), (2, 6));
    }

    /// A template that does not render is routergen's bug: status 3, not
    /// the bad-input status 2 that would blame the user's spec.
    #[test]
    fn a_broken_template_is_an_internal_error() {
        let ctx = tera::Context::new();
        // A variable the context lacks: tera refuses to render.
        let err = tera::Tera::one_off("{{ missing }}", &ctx, false).unwrap_err();
        let e = Error::template("testbench", &err);
        assert_eq!(e.exit_code(), 3);
        let text = e.to_string();
        assert!(text.contains("testbench template"), "{text}");
        assert!(text.contains("missing"), "{text}");
        assert!(text.contains("internal error"), "{text}");
    }

    /// Exit statuses by kind, as the module docs list them.
    #[test]
    fn exit_codes_by_kind() {
        let tool = Error::from(crate::flows::ToolError {
            tool: "yosys".into(),
            message: "not found".into(),
        });
        assert_eq!(tool.exit_code(), 1);
        assert_eq!(tool.to_string(), "yosys: not found");
        assert_eq!(Error::Internal("x".into()).exit_code(), 3);
        assert_eq!(Error::InvalidSpec("x".into()).exit_code(), 2);
        assert_eq!(Error::Simulation("x".into()).exit_code(), 1);
    }
}
