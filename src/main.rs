//! The `routergen` command: parses the arguments, hands them to the
//! library's [`routergen::commands`], prints the error if there is one, and
//! exits with the status the outcome or the error calls for (the table of
//! [`routergen::error`]).

use std::process::ExitCode;

use clap::Parser;

use routergen::cli::Cli;
use routergen::commands;

fn main() -> ExitCode {
    let cli = Cli::parse();
    match commands::run(&cli) {
        Ok(outcome) => ExitCode::from(outcome.exit_code()),
        Err(e) => {
            eprintln!("routergen: error: {e}");
            ExitCode::from(e.exit_code() as u8)
        }
    }
}
