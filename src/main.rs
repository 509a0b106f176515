//! The `routergen` command: parses the arguments, hands them to the
//! library's [`routergen::commands`], prints the error if there is one, and
//! exits with the status the outcome or the error calls for (the table of
//! [`routergen::error`]).

use std::process::ExitCode;

use clap::Parser;

use routergen::cli::Cli;
use routergen::commands;

fn main() -> ExitCode {
    // Output piped into a reader that stops early (`| head`) ends the
    // process quietly, as for other command-line tools, instead of a panic
    // in the next print.
    #[cfg(unix)]
    // SAFETY: restoring the default disposition of SIGPIPE before any
    // thread starts touches no Rust state.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    let cli = Cli::parse();
    match commands::run(&cli) {
        Ok(outcome) => ExitCode::from(outcome.exit_code()),
        Err(e) => {
            eprintln!("routergen: error: {e}");
            ExitCode::from(e.exit_code() as u8)
        }
    }
}
