//! `routergen completions SHELL` and `routergen man`: the shell completion
//! scripts and man pages, generated from the same clap definitions the
//! binary parses with, so they never fall behind an option.

use std::path::Path;

use clap::CommandFactory;

use super::{write_file, Outcome};
use crate::cli::{Cli, CompletionsArgs, ManArgs};
use crate::error::{Error, Result};

/// The completion script of `args.shell`, printed or written to `-o FILE`.
pub fn run(args: &CompletionsArgs) -> Result<Outcome> {
    let mut cmd = Cli::command();
    let mut buf = Vec::new();
    clap_complete::generate(args.shell, &mut cmd, "routergen", &mut buf);
    emit(&buf, args.out.as_deref())
}

/// The man pages: routergen.1 printed, or with `-o DIR` routergen.1 and
/// routergen-COMMAND.1 for each subcommand written into DIR.
pub fn man(args: &ManArgs) -> Result<Outcome> {
    let cmd = Cli::command();
    let Some(dir) = &args.out else {
        return emit(&page(cmd)?, None);
    };
    std::fs::create_dir_all(dir).map_err(|e| Error::Output {
        path: dir.clone(),
        message: e.to_string(),
    })?;
    let subs: Vec<clap::Command> = cmd
        .get_subcommands()
        // `task` is a job's own command line, not one for people.
        .filter(|s| s.get_name() != "help" && !s.is_hide_set())
        .cloned()
        .collect();
    write_page(&dir.join("routergen.1"), page(cmd)?)?;
    for sub in subs {
        let name = format!("routergen-{}", sub.get_name());
        let path = dir.join(format!("{name}.1"));
        // clap names commands with static strings; the process ends soon.
        let name: &'static str = Box::leak(name.into_boxed_str());
        write_page(&path, page(sub.name(name))?)?;
    }
    Ok(Outcome::Success)
}

/// One man page in roff.
fn page(cmd: clap::Command) -> Result<Vec<u8>> {
    let mut buf = Vec::new();
    clap_mangen::Man::new(cmd)
        .render(&mut buf)
        .map_err(|e| Error::Internal(format!("the man page does not render: {e}")))?;
    Ok(buf)
}

fn write_page(path: &Path, bytes: Vec<u8>) -> Result<()> {
    let text = String::from_utf8(bytes)
        .map_err(|e| Error::Internal(format!("the man page is not UTF-8: {e}")))?;
    write_file(path, &text)
}

fn emit(bytes: &[u8], out: Option<&Path>) -> Result<Outcome> {
    match out {
        Some(path) => write_page(path, bytes.to_vec())?,
        None => {
            use std::io::Write;
            std::io::stdout()
                .write_all(bytes)
                .map_err(|e| Error::Output {
                    path: "standard output".into(),
                    message: e.to_string(),
                })?;
        }
    }
    Ok(Outcome::Success)
}
