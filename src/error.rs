//! Typed errors and the exit codes the `routergen` binary maps them to.
//!
//! Bad input (a spec that does not hold together, a file that cannot be read
//! or parsed) exits with 2, like a usage error; failures while doing valid work
//! (writing files, running a tool) exit with 1.

use std::path::PathBuf;

#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The specification is inconsistent: the message names the bad value,
    /// what is allowed, and why.
    #[error("{0}")]
    InvalidSpec(String),

    #[error("cannot read {}: {source}", path.display())]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },

    #[error("{}:{line}:{column}: malformed TOML: {message}", path.display())]
    Toml {
        path: PathBuf,
        line: usize,
        column: usize,
        message: String,
    },

    #[error("cannot write {}: {message}", path.display())]
    Output { path: PathBuf, message: String },

    /// A network simulation found a fault: a lost, duplicated, misrouted
    /// or altered flit, or a deadlock (the message says where).
    #[error("{0}")]
    Simulation(String),
}

impl Error {
    pub fn exit_code(&self) -> i32 {
        match self {
            Error::InvalidSpec(_) | Error::Read { .. } | Error::Toml { .. } => 2,
            Error::Output { .. } | Error::Simulation(_) => 1,
        }
    }

    pub(crate) fn invalid(msg: impl Into<String>) -> Self {
        Error::InvalidSpec(msg.into())
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

/// 1-based line and column of byte `offset` in `text`.
fn line_column(text: &str, offset: usize) -> (usize, usize) {
    let before = &text[..offset.min(text.len())];
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    (line, column)
}

pub type Result<T> = std::result::Result<T, Error>;

#[cfg(test)]
mod tests {
    use super::line_column;

    #[test]
    fn line_and_column_are_one_based() {
        let text = "a = 1\nbb = x\n";
        assert_eq!(line_column(text, 0), (1, 1));
        assert_eq!(line_column(text, 6), (2, 1));
        assert_eq!(line_column(text, 11), (2, 6));
    }
}
