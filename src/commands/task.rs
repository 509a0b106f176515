//! `routergen task JSON`: the command line of a job ([`crate::work`]):
//! does the task and prints its result as JSON, which the job keeps.

use super::Outcome;
use crate::cli::TaskArgs;
use crate::error::{Error, Result};
use crate::work::Task;

/// Does the task of `args` and prints its output.
pub fn run(args: &TaskArgs) -> Result<Outcome> {
    let task: Task = serde_json::from_str(&args.task).map_err(|e| {
        Error::InvalidSpec(format!(
            "task = {:?} is not a task (the JSON a plan's job gives `routergen task`): {e}",
            args.task.chars().take(60).collect::<String>()
        ))
    })?;
    print!("{}", task.run()?.to_text()?);
    Ok(Outcome::Success)
}
