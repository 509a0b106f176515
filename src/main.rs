//! The `routergen` command: parses the arguments, hands them to the
//! library's [`routergen::commands`], prints the error if there is one
//! with the flags of the parameters it names, and exits with the status
//! the outcome or the error calls for (the table of [`routergen::error`]).

use std::process::ExitCode;

use clap::{CommandFactory, FromArgMatches};

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
    // Before any tool starts: a signal stops the tools and exits.
    routergen::interrupt::install();
    // The matches, not just the parsed arguments: they name the subcommand
    // whose flags the error is given.
    let matches = Cli::command().get_matches();
    let cli = Cli::from_arg_matches(&matches).unwrap_or_else(|e| e.exit());
    let result = commands::run(&cli);
    // A signal's handler is exiting the process: the failure of the tools
    // it stopped is not the run's error.
    routergen::interrupt::wait_if_terminating();
    match result {
        Ok(outcome) => ExitCode::from(outcome.exit_code()),
        Err(e) => {
            let e = commands::flags::name_flags(e, matches.subcommand_name());
            eprintln!("routergen: error: {e}");
            ExitCode::from(e.exit_code() as u8)
        }
    }
}
